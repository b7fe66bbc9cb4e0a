import { describe, expect, it } from "vitest";
import { splitText } from "../../src/reply/split-text.ts";

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
});
