import { describe, expect, it } from "vitest";
import { type Batch, mergeBatches } from "../../src/chat/batch.ts";
import { type BatchBounds, boundBatch } from "../../src/chat/batch-bounds.ts";
import type { ChatMessage } from "../../src/message/inbound.ts";
import { renderSegments } from "../../src/message/render.ts";
import { groupChatMessage } from "../support/messages.ts";

const BOUNDS: BatchBounds = { maxMessages: 30, maxChars: 8_000, maxMessagesPerUser: 10 };

function message(userId: string, text: string): ChatMessage {
  return groupChatMessage({ userId, text });
}

/** A realtime batch in which every message triggered the bot. */
function batchOf(messages: ChatMessage[]): Batch {
  return {
    kind: "realtime",
    sessionId: messages[0]!.sessionId,
    messages,
    triggerIds: messages.map((m) => m.messageId),
  };
}

const chars = (batch: Batch) => batch.messages.reduce((sum, m) => sum + renderSegments(m.segments).length, 0);
const texts = (batch: Batch) => batch.messages.map((m) => renderSegments(m.segments));

describe("boundBatch", () => {
  it("returns a batch within its bounds untouched", () => {
    const batch = batchOf([message("1", "你好"), message("2", "在吗")]);
    expect(boundBatch(batch, BOUNDS)).toBe(batch);
  });

  it("keeps a flooding sender to their newest messages and leaves the others' in", () => {
    const bob = message("2", "Bob 的问题");
    const flood = Array.from({ length: 300 }, (_, i) => message("1", `刷屏 ${i} ${"啊".repeat(500)}`));
    const batch = batchOf([...flood.slice(0, 150), bob, ...flood.slice(150)]);

    const bounded = boundBatch(batch, BOUNDS);

    expect(bounded.messages).toContain(bob);
    expect(chars(bounded)).toBeLessThanOrEqual(BOUNDS.maxChars);
    const floodKept = bounded.messages.filter((m) => m.userId === "1");
    expect(floodKept.length).toBeLessThanOrEqual(BOUNDS.maxMessagesPerUser);
    // The newest of the flood, in arrival order; the oldest surplus is what went.
    expect(floodKept.at(-1)).toBe(flood[299]);
    expect(bounded.messages.indexOf(bob)).toBeLessThan(bounded.messages.indexOf(flood[299]!));
    expect(bounded.omitted!.messageIds).toHaveLength(301 - bounded.messages.length);
    expect(bounded.omitted!.messageIds).toContain(flood[0]!.messageId);
    expect(bounded.omitted!.triggerIds).toEqual(bounded.omitted!.messageIds);
    expect(bounded.triggerIds).toEqual(bounded.messages.map((m) => m.messageId));
  });

  it("caps the number of messages, taking senders in turns from the most recent speaker", () => {
    const senders = ["1", "2", "3", "4"];
    const messages = Array.from({ length: 5 }, (_, round) =>
      senders.map((user) => message(user, `${user}-${round}`)),
    );
    const bounded = boundBatch(batchOf(messages.flat()), { ...BOUNDS, maxMessages: 6 });
    // Rounds: every sender's newest (round 4), then senders 4 and 3 (the most recent speakers) once more.
    expect(texts(bounded)).toEqual(["3-3", "4-3", "1-4", "2-4", "3-4", "4-4"]);
  });

  it("cuts the senders' newest messages to fair shares when they do not fit whole", () => {
    const huge = message("1", "长".repeat(50_000));
    const short = message("2", "短消息");
    const long = message("3", "中".repeat(6_000));

    const bounded = boundBatch(batchOf([huge, short, long]), BOUNDS);

    const [hugeShown, shortShown, longShown] = texts(bounded);
    expect(shortShown).toBe("短消息");
    expect(hugeShown!.endsWith("…（已截断）")).toBe(true);
    expect(longShown!.endsWith("…（已截断）")).toBe(true);
    expect(chars(bounded)).toBeLessThanOrEqual(BOUNDS.maxChars);
    expect(Math.abs(hugeShown!.length - longShown!.length)).toBeLessThanOrEqual(1);
    // Cut, not left out: the turn still answers all three, and the stored originals are untouched.
    expect(bounded.omitted!.messageIds).toEqual([]);
    expect(bounded.triggerIds).toEqual([huge.messageId, short.messageId, long.messageId]);
    expect(renderSegments(huge.segments)).toHaveLength(50_000);
  });

  it("keeps what earlier bounding left out when batches merge and are bounded again", () => {
    const first = boundBatch(batchOf(Array.from({ length: 12 }, () => message("1", "x"))), BOUNDS);
    expect(first.omitted!.messageIds).toHaveLength(2);
    const next = message("1", "y");
    const again = boundBatch(mergeBatches([first, batchOf([next])]), BOUNDS);
    expect(again.messages.at(-1)).toBe(next);
    expect(again.messages).toHaveLength(10);
    expect(again.omitted!.messageIds).toEqual([...first.omitted!.messageIds, first.messages[0]!.messageId]);
    expect(again.omitted!.triggerIds).toEqual(again.omitted!.messageIds);
  });
});
