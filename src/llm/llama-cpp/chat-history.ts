import type { LanguageModelV2Prompt, LanguageModelV2ToolResultOutput } from "@ai-sdk/provider";
import type { ToolSpec } from "../types.ts";
import type { ChatHistoryItem } from "./binding.ts";

/**
 * The conversation as node-llama-cpp's chat history, which the model's own chat template
 * (from the GGUF) renders. Tools are declared at the end of the first system message, which
 * rarely changes, so consecutive turns share their prompt prefix and the KV cache is reused.
 * Earlier tool calls appear as the JSON the model wrote; their results as user messages.
 */
export function toChatHistory(prompt: LanguageModelV2Prompt, tools: ToolSpec[]): ChatHistoryItem[] {
  const history: ChatHistoryItem[] = [];
  for (const message of prompt) {
    switch (message.role) {
      case "system":
        history.push({ type: "system", text: message.content });
        break;
      case "user":
        // Answering about a picture it cannot see would make something up: fail the call instead.
        if (message.content.some((part) => part.type === "file")) {
          throw new Error("this local model cannot see pictures (llama-cpp runs text models only)");
        }
        pushUser(
          history,
          message.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join(""),
        );
        break;
      case "assistant": {
        const parts = message.content.flatMap((part) => {
          if (part.type === "text") return [part.text];
          if (part.type === "tool-call")
            return [JSON.stringify({ name: part.toolName, arguments: part.input })];
          return [];
        });
        history.push({ type: "model", response: [parts.join("\n")] });
        break;
      }
      case "tool":
        for (const result of message.content) {
          pushUser(history, `[${result.toolName} → ${resultText(result.output)}]`);
        }
        break;
    }
  }
  if (tools.length > 0) declareTools(history, tools);
  // An empty model turn at the end: the answer is generated into it.
  history.push({ type: "model", response: [] });
  return history;
}

function declareTools(history: ChatHistoryItem[], tools: ToolSpec[]): void {
  const declarations = tools.map(
    (tool) => `- ${tool.name}: ${tool.description}\n  arguments: ${JSON.stringify(tool.parameters)}`,
  );
  const text =
    "# Tools\nAnswer with exactly one JSON object that calls one of these tools: " +
    '{"name": <tool name>, "arguments": {…}}. Write null for an optional argument you leave out.\n' +
    declarations.join("\n");
  const system = history.find((item) => item.type === "system");
  if (system) system.text = `${system.text}\n\n${text}`;
  else history.unshift({ type: "system", text });
}

/** Consecutive user texts (a tool result after a message, several results) become one message. */
function pushUser(history: ChatHistoryItem[], text: string): void {
  const last = history.at(-1);
  if (last?.type === "user") last.text = `${last.text}\n${text}`;
  else history.push({ type: "user", text });
}

function resultText(output: LanguageModelV2ToolResultOutput): string {
  switch (output.type) {
    case "text":
      return output.value;
    case "error-text":
      return `error: ${output.value}`;
    case "json":
      return JSON.stringify(output.value);
    case "error-json":
      return `error: ${JSON.stringify(output.value)}`;
    case "content":
      return output.value.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("");
  }
}
