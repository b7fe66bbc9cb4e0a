import { describe, expect, it } from "vitest";
import { decisionWord, plainWords } from "../../src/manage/replies.ts";
import { groupChatMessage, SELF } from "../support/messages.ts";

describe("answers to a kick's confirmation and a join announcement", () => {
  const answer = (text: string) => decisionWord(plainWords(groupChatMessage({ text })) ?? "");

  it("reads the ways people confirm, typed quickly with punctuation, case or a trailing emoji", () => {
    for (const text of [
      "确认",
      "确认！",
      "确认。",
      " 确定 ",
      "确认踢出",
      "踢吧~",
      "是的!!",
      "Confirm.",
      "OK",
      "yes",
      "同意👍",
    ])
      expect(answer(text), text).toBe(true);
  });

  it("reads the ways people cancel", () => {
    for (const text of ["取消", "算了", "算了吧…", "不用了", "不踢了", "Cancel", "no", "拒绝"])
      expect(answer(text), text).toBe(false);
  });

  it("takes nothing else for an answer: chat that only contains the word is conversation", () => {
    for (const text of [
      "我确认一下",
      "确认什么？",
      "好的我知道了",
      "不确定",
      "confirm what?",
      "ok but why",
      "确认".repeat(30),
    ])
      expect(answer(text), text).toBeUndefined();
  });

  it("reads only the text: a mention or a quote around the word does not change it", () => {
    const message = groupChatMessage({
      segments: [
        { type: "reply", data: { id: "42" } },
        { type: "at", data: { qq: SELF } },
        { type: "text", data: { text: " 同意" } },
      ],
    });
    expect(plainWords(message)).toBe("同意");
    expect(
      plainWords(groupChatMessage({ segments: [{ type: "image", data: { file: "a.png" } }] })),
    ).toBeUndefined();
  });
});
