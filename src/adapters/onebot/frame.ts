import { scrubText } from "../../log/logger.ts";
import { parseJsonLossless } from "../../util/json.ts";
import { isRecord } from "../../util/values.ts";

/**
 * The largest frame (WS message or HTTP event body) accepted from an implementation. NapCat
 * reports pictures, voice and files as URLs, so events are a few KB; the largest answers are
 * member lists of big groups and long forwards/histories (around 1 MB), or a `get_image` /
 * `get_file` answer carrying base64 when the implementation is set to inline files (~12 MB of
 * data). WebSockets enforce it at the frame header (`ws` closes with 1009 before buffering),
 * so an oversized frame costs no memory.
 */
export const MAX_FRAME_BYTES = 16 * 1024 * 1024;

const SAMPLE_CHARS = 200;

export type FrameParseResult =
  | { ok: true; frame: Record<string, unknown> }
  | { ok: false; problem: string; sample: string };

/** Parses one frame (WS message or HTTP body) without losing the precision of big ids. */
export function parseFrame(text: string): FrameParseResult {
  let value: unknown;
  try {
    value = parseJsonLossless(text);
  } catch (error) {
    // V8 quotes part of the input in the message, so it is scrubbed like the sample.
    const problem = `invalid JSON (${scrubFrameText((error as Error).message)})`;
    return { ok: false, problem, sample: frameSample(text) };
  }
  if (!isRecord(value)) return { ok: false, problem: "not a JSON object", sample: frameSample(text) };
  return { ok: true, frame: value };
}

/** Values of JSON keys that look like credentials. */
const SECRET_JSON_FIELD = /("(?:access_?token|token|secret|password|authorization)"\s*:\s*)"[^"]*"?/gi;

/** A short, log-safe excerpt: truncated, with tokens and base64 payloads removed. */
export function frameSample(text: string): string {
  const head = text.length > SAMPLE_CHARS ? `${text.slice(0, SAMPLE_CHARS)}…` : text;
  return scrubFrameText(head);
}

function scrubFrameText(text: string): string {
  return scrubText(text).replace(SECRET_JSON_FIELD, '$1"***"');
}
