import type {
  LanguageModelV2,
  LanguageModelV2CallOptions,
  LanguageModelV2CallWarning,
  LanguageModelV2Content,
  LanguageModelV2FinishReason,
  LanguageModelV2Usage,
} from "@ai-sdk/provider";
import type { LlmTextSink } from "./types.ts";

/** A model's whole answer, streamed or not: what the client reads of `doGenerate`'s result. */
export interface ModelAnswer {
  content: LanguageModelV2Content[];
  usage: LanguageModelV2Usage;
  finishReason: LanguageModelV2FinishReason;
  warnings?: LanguageModelV2CallWarning[];
  /** Streamed answers: milliseconds from `started` to the first text. */
  firstTokenMs?: number;
}

/**
 * Streams one answer, handing its text to `sink` as it arrives, and collects it into the
 * shape `doGenerate` returns. A stream that ends in an error part throws it, like a failed
 * `doGenerate`; the call's abort signal (timeout, turn end) ends the read.
 */
export async function streamAnswer(
  model: LanguageModelV2,
  options: LanguageModelV2CallOptions,
  sink: LlmTextSink,
  started: number,
): Promise<ModelAnswer> {
  const { stream } = await model.doStream(options);
  const content: LanguageModelV2Content[] = [];
  const answer: ModelAnswer = {
    content,
    usage: { inputTokens: undefined, outputTokens: undefined, totalTokens: undefined },
    finishReason: "unknown",
  };
  let text = "";
  for await (const part of stream) {
    switch (part.type) {
      case "text-delta":
        if (part.delta === "") break;
        answer.firstTokenMs ??= Math.round(performance.now() - started);
        text += part.delta;
        sink.text(part.delta);
        break;
      case "tool-call":
        content.push(part);
        break;
      case "stream-start":
        answer.warnings = part.warnings;
        break;
      case "finish":
        answer.usage = part.usage;
        answer.finishReason = part.finishReason;
        break;
      case "error":
        throw part.error;
    }
  }
  if (text) content.unshift({ type: "text", text });
  return answer;
}
