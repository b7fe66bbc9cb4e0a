import type { Segment } from "./segment.ts";

/** Inline payloads longer than this are not kept in history or on the timeline. */
const MAX_KEPT_INLINE_CHARS = 4_096;
/** What a payload not kept starts with: "(" is not a base64 character, so no payload does. */
const NOT_KEPT_PREFIX = "base64://(";

/** Whether a stored segment's `file` is the note left for a payload that was not kept (nothing to decode). */
export function isPayloadNotKept(file: string): boolean {
  return file.startsWith(NOT_KEPT_PREFIX);
}

/**
 * The segments as history keeps them: an inline `base64://` payload (a voice clip or a
 * picture the bot generated, often hundreds of KB) is replaced by a note of its size, so the
 * message store and monitor stay small. What was sent is unchanged.
 */
export function withoutLargeInlinePayloads(segments: Segment[]): Segment[] {
  let changed = false;
  const kept = segments.map((segment) => {
    const file = segment.data.file;
    if (typeof file !== "string" || !file.startsWith("base64://") || file.length <= MAX_KEPT_INLINE_CHARS) {
      return segment;
    }
    changed = true;
    const bytes = Math.floor(((file.length - "base64://".length) * 3) / 4);
    return {
      ...segment,
      data: { ...segment.data, file: `${NOT_KEPT_PREFIX}${bytes} bytes, not kept)` },
    } as Segment;
  });
  return changed ? kept : segments;
}
