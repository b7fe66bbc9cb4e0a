import { describe, expect, it } from "vitest";
import {
  detectTrigger,
  quotedMessageId,
  stripLeadingMention,
  type TriggerSettings,
} from "../../src/chat/triggers.ts";
import type { ChatMessage } from "../../src/message/inbound.ts";
import type { Segment } from "../../src/message/segment.ts";

const settings: TriggerSettings = {
  mention: true,
  replyToSelf: true,
  keywords: ["天气"],
  privateAlways: true,
  poke: true,
  names: ["紬", "tsumugi"],
};

function message(segments: Segment[], overrides: Partial<ChatMessage> = {}): ChatMessage {
  return {
    platform: "onebot",
    adapterId: "qq",
    selfId: "10000",
    sessionId: "onebot:10000:group:1",
    chatType: "group",
    groupId: "1",
    userId: "2",
    senderName: "A",
    messageId: "9",
    segments,
    time: 0,
    fromSelf: false,
    ...overrides,
  };
}
const text = (t: string): Segment => ({ type: "text", data: { text: t } });

describe("detectTrigger", () => {
  it("recognises each trigger and nothing else", () => {
    expect(detectTrigger(message([{ type: "at", data: { qq: "10000" } }]), settings, false)).toBe("mention");
    expect(detectTrigger(message([{ type: "at", data: { qq: "12345" } }, text("hi")]), settings, false)).toBe(
      undefined,
    );
    expect(detectTrigger(message([text("明天天气如何")]), settings, false)).toBe("keyword");
    expect(detectTrigger(message([text("TSUMUGI 你好")]), settings, false)).toBe("keyword");
    expect(detectTrigger(message([text("hi")], { chatType: "private" }), settings, false)).toBe("private");
    const reply: Segment = { type: "reply", data: { id: "77" } };
    expect(quotedMessageId(message([reply, text("嗯")]), settings)).toBe("77");
    expect(detectTrigger(message([reply, text("嗯")]), settings, true)).toBe("reply_to_self");
    expect(detectTrigger(message([reply, text("嗯")]), settings, false)).toBe(undefined);
    expect(quotedMessageId(message([text("嗯")]), settings)).toBe(undefined);
  });

  it("honours switched-off triggers and never triggers on the bot's own messages", () => {
    const off = { ...settings, mention: false, privateAlways: false, names: [], keywords: [] };
    expect(detectTrigger(message([{ type: "at", data: { qq: "10000" } }]), off, false)).toBe(undefined);
    // The name is a mention too: off with mentions, whatever the names are.
    expect(detectTrigger(message([text("紬 你好")]), { ...settings, mention: false }, false)).toBe(undefined);
    expect(detectTrigger(message([text("hi")], { chatType: "private" }), off, false)).toBe(undefined);
    expect(detectTrigger(message([text("紬")], { fromSelf: true }), settings, false)).toBe(undefined);
    // Nobody looks up whom a message replies to when that cannot trigger the bot.
    const reply: Segment = { type: "reply", data: { id: "77" } };
    expect(quotedMessageId(message([reply]), { ...settings, replyToSelf: false })).toBe(undefined);
    expect(quotedMessageId(message([reply], { fromSelf: true }), settings)).toBe(undefined);
    expect(detectTrigger(message([reply]), { ...settings, replyToSelf: false }, true)).toBe(undefined);
  });
});

describe("stripLeadingMention", () => {
  const names = ["紬", "tsumugi"];

  it("removes a leading at of the bot and the space after it", () => {
    expect(
      stripLeadingMention([{ type: "at", data: { qq: "10000" } }, text("  你好")], "10000", names),
    ).toEqual([text("你好")]);
  });

  it("keeps a reply segment in front and an at of someone else", () => {
    const reply: Segment = { type: "reply", data: { id: "5" } };
    expect(
      stripLeadingMention([reply, { type: "at", data: { qq: "10000" } }, text(" 嗯")], "10000", names),
    ).toEqual([reply, text("嗯")]);
    const other: Segment[] = [{ type: "at", data: { qq: "555" } }, text(" 嗯")];
    expect(stripLeadingMention(other, "10000", names)).toEqual(other);
  });

  it("removes a typed @name only when a delimiter follows it", () => {
    expect(stripLeadingMention([text("@紬 你好")], "10000", names)).toEqual([text("你好")]);
    expect(stripLeadingMention([text("@tsumugi，在吗")], "10000", names)).toEqual([text("在吗")]);
    expect(stripLeadingMention([text("@紬bot 你好")], "10000", names)).toEqual([text("@紬bot 你好")]);
    expect(stripLeadingMention([text("@紬")], "10000", names)).toEqual([text("@紬")]);
  });
});
