import {
  InvalidToolInputError,
  type JSONSchema7,
  type JSONValue,
  jsonSchema,
  type ModelMessage,
  type ToolSet,
  type TypedToolCall,
  tool,
} from "ai";
import type { LlmMessage, LlmToolCall, LlmToolResult, ToolSpec } from "./types.ts";

/** Our conversation in the AI SDK's message format. */
export function toModelMessages(messages: LlmMessage[]): ModelMessage[] {
  return messages.map(toModelMessage);
}

function toModelMessage(message: LlmMessage): ModelMessage {
  switch (message.role) {
    case "system":
    case "user":
      return { role: message.role, content: message.content };
    case "assistant": {
      const calls = message.toolCalls ?? [];
      if (calls.length === 0) return { role: "assistant", content: message.content };
      return {
        role: "assistant",
        content: [
          ...(message.content ? [{ type: "text" as const, text: message.content }] : []),
          ...calls.map((call) => ({
            type: "tool-call" as const,
            toolCallId: call.id,
            toolName: call.name,
            input: call.input,
          })),
        ],
      };
    }
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

function toToolResultOutput(result: LlmToolResult) {
  if (typeof result.output === "string") {
    return { type: result.isError ? ("error-text" as const) : ("text" as const), value: result.output };
  }
  return {
    type: result.isError ? ("error-json" as const) : ("json" as const),
    value: toJsonValue(result.output),
  };
}

/**
 * Tool handlers return arbitrary objects and the SDK validates JSON values strictly (an
 * `undefined` property fails), so the value goes through JSON once, as it will on the wire.
 */
function toJsonValue(value: unknown): JSONValue {
  return JSON.parse(JSON.stringify(value ?? null)) as JSONValue;
}

/** Tools without `execute`: the SDK only declares them; the agent runs the calls itself. */
export function toToolSet(tools: ToolSpec[]): ToolSet {
  const set: ToolSet = {};
  for (const spec of tools) {
    set[spec.name] = tool({
      description: spec.description,
      // Our specs are plain JSON Schema objects; without `validate` the SDK only checks that
      // the arguments are JSON, so schema validation stays with the caller.
      inputSchema: jsonSchema(spec.parameters as JSONSchema7),
    });
  }
  return set;
}

/**
 * The SDK reports a call whose arguments were not JSON (or that names an unknown tool) as
 * `invalid` with the raw text as `input`, instead of throwing; we keep such calls and mark
 * malformed JSON with `invalidJson` so the caller can tell the model once.
 */
export function fromSdkToolCalls(calls: TypedToolCall<ToolSet>[]): LlmToolCall[] {
  return calls.map((call) => {
    const converted: LlmToolCall = { id: call.toolCallId, name: call.toolName, input: call.input };
    if (call.invalid && InvalidToolInputError.isInstance(call.error))
      converted.invalidJson = call.error.toolInput;
    return converted;
  });
}
