import { randomUUID } from "node:crypto";
import type {
  LanguageModelV2,
  LanguageModelV2CallOptions,
  LanguageModelV2Content,
  LanguageModelV2FinishReason,
  LanguageModelV2StreamPart,
} from "@ai-sdk/provider";
import type { ToolSpec } from "../types.ts";
import { toChatHistory } from "./chat-history.ts";
import type { LocalAnswer, LocalModel } from "./local-model.ts";
import { parseToolCall, toolCallSchema } from "./tool-grammar.ts";

/** Longest answer when the request sets no limit; a planner call needs far less. */
const DEFAULT_MAX_TOKENS = 1024;
const DEFAULT_TEMPERATURE = 0.7;

/**
 * A local model behind the same provider interface as the remote ones, so the LLM client's
 * timeouts, fallbacks and usage records apply unchanged. When tools are offered (and the
 * choice is not "none") the answer is generated under a grammar and is always one call of an
 * offered tool: a small model decides through `no_reply` rather than free text.
 */
export function localLanguageModel(model: LocalModel, providerId: string, modelId: string): LanguageModelV2 {
  return {
    specificationVersion: "v2",
    provider: `llama-cpp.${providerId}`,
    modelId,
    supportedUrls: {},
    doGenerate: generate,
    // The whole answer as one piece: the replyer streams, and a local model answers whole.
    async doStream(options) {
      const answer = await generate(options);
      const parts: LanguageModelV2StreamPart[] = [
        { type: "stream-start", warnings: [] },
        ...answer.content.flatMap((part): LanguageModelV2StreamPart[] =>
          part.type === "text"
            ? [
                { type: "text-start", id: "0" },
                { type: "text-delta", id: "0", delta: part.text },
                { type: "text-end", id: "0" },
              ]
            : [part as LanguageModelV2StreamPart],
        ),
        { type: "finish", usage: answer.usage, finishReason: answer.finishReason },
      ];
      return { stream: ReadableStream.from(parts) };
    },
  };

  async function generate(options: LanguageModelV2CallOptions) {
    const tools = offeredTools(options);
    const answer = await model.generate({
      history: toChatHistory(options.prompt, tools),
      ...(tools.length > 0 ? { schema: toolCallSchema(tools) } : {}),
      maxTokens: options.maxOutputTokens ?? DEFAULT_MAX_TOKENS,
      temperature: options.temperature ?? DEFAULT_TEMPERATURE,
      signal: options.abortSignal,
    });
    const { content, finishReason } = tools.length > 0 ? callContent(answer, tools) : textContent(answer);
    return {
      content,
      finishReason,
      usage: {
        inputTokens: answer.promptTokens,
        outputTokens: answer.completionTokens,
        totalTokens: answer.promptTokens + answer.completionTokens,
      },
      warnings: [],
    };
  }
}

function offeredTools(options: LanguageModelV2CallOptions): ToolSpec[] {
  const choice = options.toolChoice;
  if (choice?.type === "none") return [];
  const tools = (options.tools ?? []).flatMap((tool) =>
    tool.type === "function"
      ? [
          {
            name: tool.name,
            description: tool.description ?? "",
            parameters: tool.inputSchema as Record<string, unknown>,
          },
        ]
      : [],
  );
  return choice?.type === "tool" ? tools.filter((tool) => tool.name === choice.toolName) : tools;
}

function textContent(answer: LocalAnswer): {
  content: LanguageModelV2Content[];
  finishReason: LanguageModelV2FinishReason;
} {
  return {
    content: answer.text ? [{ type: "text", text: answer.text }] : [],
    finishReason: answer.stopReason === "maxTokens" ? "length" : "stop",
  };
}

/** The call the grammar produced; one cut short by the token limit goes back raw, marked invalid by the client. */
function callContent(
  answer: LocalAnswer,
  tools: ToolSpec[],
): { content: LanguageModelV2Content[]; finishReason: LanguageModelV2FinishReason } {
  const call = parseToolCall(answer.text, tools);
  const finishReason = answer.stopReason === "maxTokens" ? "length" : "tool-calls";
  if (call.ok) {
    return {
      content: [
        {
          type: "tool-call",
          toolCallId: randomUUID(),
          toolName: call.name,
          input: JSON.stringify(call.input),
        },
      ],
      finishReason,
    };
  }
  if (call.name === undefined) return textContent(answer);
  return {
    content: [{ type: "tool-call", toolCallId: randomUUID(), toolName: call.name, input: call.text }],
    finishReason,
  };
}
