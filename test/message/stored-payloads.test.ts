import { describe, expect, it } from "vitest";
import type { Segment } from "../../src/message/segment.ts";
import { withoutLargeInlinePayloads } from "../../src/message/stored-payloads.ts";

describe("withoutLargeInlinePayloads", () => {
  it("replaces a large inline voice clip by its size and keeps everything else", () => {
    const voice: Segment = { type: "record", data: { file: `base64://${"A".repeat(40_000)}` } };
    const small: Segment = { type: "image", data: { file: "base64://AAAA" } };
    const text: Segment = { type: "text", data: { text: "hi" } };
    const kept = withoutLargeInlinePayloads([text, voice, small]);
    expect(kept).toEqual([
      text,
      { type: "record", data: { file: "base64://(30000 bytes, not kept)" } },
      small,
    ]);
    expect(voice.data.file).toHaveLength(40_009);
  });

  it("returns the same list when nothing is large", () => {
    const segments: Segment[] = [{ type: "image", data: { file: "https://example.invalid/a.png" } }];
    expect(withoutLargeInlinePayloads(segments)).toBe(segments);
  });
});
