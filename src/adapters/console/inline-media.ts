import { readFile, stat } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import type { Segment } from "../../message/segment.ts";

/** Larger local files are left as they are rather than copied into every page. */
const MAX_INLINE_BYTES = 10 * 1024 * 1024;
const MEDIA_TYPES = new Set(["image", "record", "video"]);

/**
 * Replaces `file:///…` media in outgoing segments with `base64://…`, as a platform would
 * upload them, so a browser can show or play them.
 */
export async function inlineLocalMedia(segments: Segment[]): Promise<Segment[]> {
  return Promise.all(
    segments.map(async (segment) => {
      const file = segment.data.file;
      if (!MEDIA_TYPES.has(segment.type) || typeof file !== "string" || !file.startsWith("file://")) {
        return segment;
      }
      const path = fileURLToPath(file);
      const size = await stat(path).then(
        (info) => info.size,
        () => undefined,
      );
      if (size === undefined || size > MAX_INLINE_BYTES) return segment;
      const content = await readFile(path);
      return {
        ...segment,
        data: { ...segment.data, file: `base64://${content.toString("base64")}` },
      } as Segment;
    }),
  );
}
