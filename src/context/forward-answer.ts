import { isRecord } from "../util/values.ts";

/**
 * The message entries of a `get_forward_msg` answer, whichever shape the implementation
 * uses: spec/Lagrange `{message: [node segments]}`, go-cqhttp/LLOneBot and NapCat/SnowLuma
 * `{messages: [...]}`, or a bare array. Undefined when the answer has none of these shapes.
 */
export function forwardEntries(data: unknown): unknown[] | undefined {
  if (Array.isArray(data)) return data;
  if (!isRecord(data)) return undefined;
  if (Array.isArray(data.messages)) return data.messages;
  if (Array.isArray(data.message)) return data.message;
  return undefined;
}
