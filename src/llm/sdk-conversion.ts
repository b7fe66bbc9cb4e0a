import type {
  JSONSchema7,
  JSONValue,
  LanguageModelV2Content,
  LanguageModelV2FunctionTool,
  LanguageModelV2Message,
  LanguageModelV2Prompt,
  LanguageModelV2ToolResultOutput,
} from "@ai-sdk/provider";
import type { LlmMessage, LlmToolCall, LlmToolResult, ToolSpec } from "./types.ts";

/**
 * Our conversation in the provider interface's prompt format. We call the providers' models
 * directly (one round, no tool execution, our own retries), so nothing else builds it.
 */
export function toPrompt(messages: LlmMessage[], withImages = true): LanguageModelV2Prompt {
  return messages.map((message) => toPromptMessage(message, withImages));
}

/** `withImages` false: user messages go without their images (a model that cannot see them). */
function toPromptMessage(message: LlmMessage, withImages: boolean): LanguageModelV2Message {
  switch (message.role) {
    case "system":
      return { role: "system", content: message.content };
    case "user":
      return {
        role: "user",
        content: [
          { type: "text", text: message.content },
          // Each provider writes a file part of an image type as its own image input.
          ...(withImages ? (message.images ?? []) : []).map((image) => ({
            type: "file" as const,
            mediaType: image.mime,
            data: image.bytes,
          })),
        ],
      };
    case "assistant":
      return {
        role: "assistant",
        content: [
          ...(message.content ? [{ type: "text" as const, text: message.content }] : []),
          ...(message.toolCalls ?? []).map((call) => ({
            type: "tool-call" as const,
            toolCallId: call.id,
            toolName: call.name,
            input: call.input,
          })),
        ],
      };
    case "tool":
      return {
        role: "tool",
        content: message.results.map((result) => ({
          type: "tool-result" as const,
          toolCallId: result.toolCallId,
          toolName: result.toolName,
          output: toToolResultOutput(result),
        })),
      };
  }
}

function toToolResultOutput(result: LlmToolResult): LanguageModelV2ToolResultOutput {
  if (typeof result.output === "string") {
    return { type: result.isError ? "error-text" : "text", value: result.output };
  }
  // Handlers return arbitrary objects; through JSON once, as they will go on the wire.
  const value = JSON.parse(JSON.stringify(result.output ?? null)) as JSONValue;
  return { type: result.isError ? "error-json" : "json", value };
}

/** Tool declarations; validation of the arguments stays with the caller. */
export function toFunctionTools(tools: ToolSpec[]): LanguageModelV2FunctionTool[] {
  return tools.map((spec) => ({
    type: "function",
    name: spec.name,
    description: spec.description,
    inputSchema: spec.parameters as JSONSchema7,
  }));
}

/** The text and tool calls of a model answer. Arguments that are not JSON keep their raw text. */
export function fromContent(content: LanguageModelV2Content[]): { text: string; toolCalls: LlmToolCall[] } {
  let text = "";
  const toolCalls: LlmToolCall[] = [];
  for (const part of content) {
    if (part.type === "text") text += part.text;
    if (part.type !== "tool-call") continue;
    const call: LlmToolCall = { id: part.toolCallId, name: part.toolName, input: part.input };
    try {
      call.input = part.input.trim() === "" ? {} : JSON.parse(part.input);
    } catch {
      call.invalidJson = part.input;
    }
    toolCalls.push(call);
  }
  return { text, toolCalls };
}
