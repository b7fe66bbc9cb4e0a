import { describe, expect, it } from "vitest";
import { boundedTranscript, isSkipAnswer } from "../../src/agent/transcript-prompt.ts";

describe("a digest's answer", () => {
  it.each(["SKIP", "skip", "  SKIP\n", "**SKIP**", "SKIP。", "- skip", "【SKIP】", "`SKIP`"])(
    "reads %j as nothing to say",
    (text) => {
      expect(isSkipAnswer(text)).toBe(true);
    },
  );

  it.each(["SKIP 这个话题我不懂", "不要 skip", "skipping", "好啊"])("sends %j", (text) => {
    expect(isSkipAnswer(text)).toBe(false);
  });
});

describe("the digest and summary transcript bound", () => {
  it("keeps the newest lines that fit, oldest first", () => {
    expect(boundedTranscript(["aaaa", "bbbb", "cccc"], 10)).toEqual(["bbbb", "cccc"]);
  });

  it("cuts a newest line longer than the whole budget instead of sending nothing", () => {
    expect(boundedTranscript(["short", "x".repeat(50)], 20)).toEqual(["x".repeat(20)]);
  });
});
