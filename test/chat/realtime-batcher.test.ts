import { describe, expect, it } from "vitest";
import type { Batch } from "../../src/chat/batch.ts";
import type { RealtimeSettings } from "../../src/chat/config.ts";
import { RealtimeBatcher, type RealtimeFlushReason } from "../../src/chat/realtime-batcher.ts";
import type { ChatMessage } from "../../src/message/inbound.ts";
import { ManualClock } from "../support/manual-clock.ts";
import { groupChatMessage } from "../support/messages.ts";

const DEFAULTS: RealtimeSettings = {
  windowMs: 800,
  maxWindowMs: 3000,
  maxMessages: 10,
  maxChars: 8000,
  maxTurnMessages: 30,
  maxTurnChars: 8000,
  maxTurnMessagesPerUser: 10,
};

function message(userId: string, text: string, group = "20000"): ChatMessage {
  return groupChatMessage({ userId, text, groupId: group });
}

function setup(settings: Partial<RealtimeSettings> = {}) {
  const clock = new ManualClock();
  const flushed: Array<{ batch: Batch; reason: RealtimeFlushReason; at: number }> = [];
  const start = clock.now();
  const batcher = new RealtimeBatcher(
    () => ({ ...DEFAULTS, ...settings }),
    clock,
    (batch, reason) => flushed.push({ batch, reason, at: clock.now() - start }),
  );
  const texts = (index: number) =>
    flushed[index]!.batch.messages.map((m) => (m.segments[0]!.data as { text: string }).text);
  return { clock, batcher, flushed, texts };
}

describe("realtime batching", () => {
  it("answers a burst of three lines once, after windowMs of quiet", () => {
    const { clock, batcher, flushed, texts } = setup();
    expect(batcher.offer(message("1", "@bot 在吗"), true)).toBe(true);
    clock.advance(500);
    expect(batcher.offer(message("1", "问个问题"), false)).toBe(true);
    clock.advance(500);
    expect(batcher.offer(message("1", "上海今天下雨吗"), false)).toBe(true);
    clock.advance(799);
    expect(flushed).toHaveLength(0);
    clock.advance(1);
    expect(flushed).toHaveLength(1);
    expect(flushed[0]!.reason).toBe("quiet");
    expect(flushed[0]!.at).toBe(1800);
    expect(texts(0)).toEqual(["@bot 在吗", "问个问题", "上海今天下雨吗"]);
    expect(flushed[0]!.batch.kind).toBe("realtime");
    expect(flushed[0]!.batch.triggerIds).toEqual([flushed[0]!.batch.messages[0]!.messageId]);
  });

  it("closes a window that keeps getting messages after maxWindowMs", () => {
    const { clock, batcher, flushed } = setup();
    batcher.offer(message("1", "@bot a"), true);
    for (let i = 0; i < 6; i++) {
      clock.advance(500);
      batcher.offer(message("1", `more ${i}`), false);
    }
    expect(flushed).toHaveLength(1);
    expect(flushed[0]!.reason).toBe("max-window");
    expect(flushed[0]!.at).toBe(3000);
    expect(flushed[0]!.batch.messages).toHaveLength(6);
    // The message after the window closed does not open a new one: it did not trigger.
    expect(batcher.offer(message("1", "late"), false)).toBe(false);
  });

  it("closes at maxMessages without waiting", () => {
    const { batcher, flushed } = setup({ maxMessages: 3 });
    batcher.offer(message("1", "@bot 1"), true);
    batcher.offer(message("1", "2"), false);
    expect(flushed).toHaveLength(0);
    batcher.offer(message("1", "3"), false);
    expect(flushed.map((f) => f.reason)).toEqual(["max-messages"]);
    expect(flushed[0]!.at).toBe(0);
  });

  it("closes at maxChars without waiting", () => {
    const { batcher, flushed } = setup({ maxChars: 10 });
    batcher.offer(message("1", "@bot 123"), true);
    expect(flushed).toHaveLength(0);
    batcher.offer(message("1", "67890"), false);
    expect(flushed.map((f) => f.reason)).toEqual(["max-chars"]);
  });

  it("flushes every open window on shutdown", () => {
    const { batcher, flushed, clock } = setup();
    batcher.offer(message("1", "@bot a"), true);
    batcher.offer(message("2", "@bot b", "20001"), true);
    batcher.flushAll();
    expect(flushed.map((f) => f.reason)).toEqual(["shutdown", "shutdown"]);
    clock.advance(10_000);
    expect(flushed).toHaveLength(2);
    expect(clock.pendingTimers).toBe(0);
  });

  it("keys windows by session and sender: others' messages neither join nor open one", () => {
    const { clock, batcher, flushed, texts } = setup();
    batcher.offer(message("1", "@bot alice"), true);
    expect(batcher.offer(message("2", "bob chatting"), false)).toBe(false);
    expect(batcher.offer(message("1", "alice elsewhere", "29999"), false)).toBe(false);
    batcher.offer(message("2", "@bot bob"), true);
    clock.advance(800);
    expect(flushed).toHaveLength(2);
    expect(texts(0)).toEqual(["@bot alice"]);
    expect(texts(1)).toEqual(["@bot bob"]);
  });

  it("hands a trigger over at once when windowMs is 0", () => {
    const { batcher, flushed } = setup({ windowMs: 0 });
    batcher.offer(message("1", "@bot now"), true);
    expect(flushed).toHaveLength(1);
  });
});
