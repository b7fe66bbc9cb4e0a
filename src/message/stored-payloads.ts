import type { Segment } from "./segment.ts";

/** Inline payloads longer than this are not kept in history or on the timeline. */
const MAX_KEPT_INLINE_CHARS = 4_096;

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
    return { ...segment, data: { ...segment.data, file: `base64://(${bytes} bytes, not kept)` } } as Segment;
  });
  return changed ? kept : segments;
}
