import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { normalizeSegments } from "../../src/message/normalize.ts";
import { toOneBotSegments } from "../../src/message/onebot-wire.ts";
import { parseJsonLossless } from "../../src/util/json.ts";
import { segmentList } from "./segment-arbitrary.ts";

describe("toOneBotSegments", () => {
  it("sends unknown segments exactly as they came, without our marker", () => {
    const incoming = [
      { type: "music", data: { type: "custom", url: "https://example.com", nested: { list: [1, 2] } } },
      { type: "at", data: { qq: { weird: true } } },
    ];
    const wire = toOneBotSegments(normalizeSegments(incoming));
    expect(wire).toEqual(incoming);
    expect(JSON.stringify(wire)).not.toContain("unknown");
  });

  it("converts node content recursively and keeps big ids as exact strings", () => {
    const frame =
      '[{"type":"node","data":{"user_id":10001,"nickname":"小明","content":[{"type":"forward","data":{"id":7321873298371293187}},{"type":"shake","data":{}}]}}]';
    const wire = toOneBotSegments(normalizeSegments(parseJsonLossless(frame)));
    expect(JSON.stringify(wire)).toBe(
      '[{"type":"node","data":{"user_id":"10001","nickname":"小明","content":[{"type":"forward","data":{"id":"7321873298371293187"}},{"type":"shake","data":{}}]}}]',
    );
  });

  it("reads back as the same segments for any segment list", () => {
    fc.assert(
      fc.property(segmentList, (segments) => {
        const wire = JSON.stringify(toOneBotSegments(segments));
        expect(wire).not.toContain('"unknown"');
        expect(normalizeSegments(parseJsonLossless(wire))).toEqual(segments);
      }),
      { numRuns: 500 },
    );
  });
});
