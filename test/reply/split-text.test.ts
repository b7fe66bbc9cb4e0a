import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { StreamSplitter, splitText } from "../../src/reply/split-text.ts";

describe("splitText", () => {
  it("keeps short text whole", () => {
    expect(splitText("  你好呀  ", 10)).toEqual(["你好呀"]);
  });

  it("cuts after the last sentence end that fits", () => {
    expect(splitText("第一句。第二句！第三句", 9)).toEqual(["第一句。第二句！", "第三句"]);
  });

  it("falls back to a space, then a hard cut", () => {
    expect(splitText("hello world again", 12)).toEqual(["hello world", "again"]);
    expect(splitText("aaaaaaaaaa", 4)).toEqual(["aaaa", "aaaa", "aa"]);
  });

  it("never loses or reorders characters", () => {
    const text = "这是一段很长的话。".repeat(50);
    const chunks = splitText(text, 37);
    expect(chunks.every((c) => c.length <= 37)).toBe(true);
    expect(chunks.join("")).toBe(text);
  });

  it("cuts a text streamed in any pieces into the same messages, each handed out once it is final", () => {
    const piece = fc.string({ unit: fc.constantFrom("a", "字", " ", "。", "！", "\n"), maxLength: 12 });
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), fc.integer({ min: 1, max: 12 }), (pieces, limit) => {
        const splitter = new StreamSplitter(limit);
        const streamed: string[] = [];
        let received = "";
        for (const text of pieces) {
          received += text;
          const done = splitter.push(text);
          streamed.push(...done);
          // What is handed out is already what the whole text will start with.
          expect(splitText(received, limit).slice(0, streamed.length)).toEqual(streamed);
        }
        expect([...streamed, ...splitter.end()]).toEqual(splitText(pieces.join(""), limit));
      }),
    );
  });
});
