import { describe, expect, it } from "vitest";
import type { SummarySettings } from "../../src/chat/config.ts";
import { parseSummaryCommand } from "../../src/chat/summary-command.ts";

const SETTINGS: SummarySettings = {
  commands: ["/summary", "/总结"],
  count: 100,
  maxCount: 200,
  maxTranscriptChars: 20_000,
};

describe("the summary command", () => {
  it.each([
    ["/summary", 100],
    ["/总结", 100],
    ["/SUMMARY 30", 30],
    ["  /summary 50  ", 50],
    ["/总结50", 50],
    ["/总结 最近聊了啥", 100],
    ["/summary 500", 200],
    ["/summary 0", 100],
  ])("reads %j as a request for %i messages", (text, count) => {
    expect(parseSummaryCommand(text, SETTINGS)).toBe(count);
  });

  it.each(["/summarylater", "summary", "请 /总结", "", "/sum"])(
    "does not take %j for the command",
    (text) => {
      expect(parseSummaryCommand(text, SETTINGS)).toBeUndefined();
    },
  );

  it("is off with no command words", () => {
    expect(parseSummaryCommand("/summary", { ...SETTINGS, commands: [] })).toBeUndefined();
  });
});
