import { describe, expect, it } from "vitest";
import type { Batch } from "../../src/chat/batch.ts";
import type { DigestSettings } from "../../src/chat/config.ts";
import { type DigestFlushReason, DigestScheduler } from "../../src/chat/digest-scheduler.ts";
import type { ChatMessage } from "../../src/message/inbound.ts";
import { ManualClock } from "../support/manual-clock.ts";
import { groupChatMessage } from "../support/messages.ts";

const DEFAULTS: DigestSettings = {
  enabled: true,
  intervalMs: 300_000,
  minMessages: 3,
  maxMessages: 50,
  maxTranscriptChars: 20_000,
};

function chatter(group = "20000", fromSelf = false): ChatMessage {
  return groupChatMessage({
    groupId: group,
    userId: fromSelf ? "10000" : "30001",
    senderName: "Alice",
    text: "随便聊聊",
    fromSelf,
  });
}

function setup(overrides: Partial<DigestSettings> = {}) {
  const clock = new ManualClock();
  let settings = { ...DEFAULTS, ...overrides };
  const digests: Array<{ batch: Batch; reason: DigestFlushReason }> = [];
  const scheduler = new DigestScheduler(
    () => settings,
    clock,
    (batch, reason) => digests.push({ batch, reason }),
  );
  return {
    clock,
    scheduler,
    digests,
    change: (next: Partial<DigestSettings>) => {
      settings = { ...settings, ...next };
    },
  };
}

describe("digest scheduling", () => {
  it("hands over the gathered chatter as one digest when the interval ends", () => {
    const { clock, scheduler, digests } = setup();
    const messages = [chatter(), chatter(), chatter()];
    for (const m of messages) scheduler.offer(m);
    clock.advance(299_999);
    expect(digests).toHaveLength(0);
    clock.advance(1);
    expect(digests).toHaveLength(1);
    expect(digests[0]!.reason).toBe("interval");
    expect(digests[0]!.batch).toEqual({
      kind: "digest",
      sessionId: messages[0]!.sessionId,
      messages,
      triggerIds: [],
    });
    expect(scheduler.pendingSessions).toBe(0);
  });

  it("re-arms below minMessages and keeps what it gathered", () => {
    const { clock, scheduler, digests } = setup();
    scheduler.offer(chatter());
    scheduler.offer(chatter());
    clock.advance(300_000);
    expect(digests).toHaveLength(0);
    expect(clock.pendingTimers).toBe(1);
    scheduler.offer(chatter());
    clock.advance(299_999);
    expect(digests).toHaveLength(0);
    clock.advance(1);
    expect(digests).toHaveLength(1);
    expect(digests[0]!.batch.messages).toHaveLength(3);
  });

  it("hands over at once when maxMessages gather before the interval ends", () => {
    const { clock, scheduler, digests } = setup({ maxMessages: 4 });
    for (let i = 0; i < 4; i++) scheduler.offer(chatter());
    expect(digests.map((d) => d.reason)).toEqual(["max-messages"]);
    expect(clock.pendingTimers).toBe(0);
    scheduler.offer(chatter());
    expect(clock.pendingTimers).toBe(1);
  });

  it("keeps one buffer per session", () => {
    const { clock, scheduler, digests } = setup({ minMessages: 1 });
    scheduler.offer(chatter("1"));
    clock.advance(100_000);
    scheduler.offer(chatter("2"));
    clock.advance(200_000);
    expect(digests.map((d) => d.batch.sessionId)).toEqual(["onebot:10000:group:1"]);
    clock.advance(100_000);
    expect(digests.map((d) => d.batch.sessionId)).toEqual(["onebot:10000:group:1", "onebot:10000:group:2"]);
  });

  it("gathers nothing while disabled, ignores the bot's own messages, and drops buffers when turned off", () => {
    const { clock, scheduler, digests, change } = setup({ enabled: false, minMessages: 1 });
    scheduler.offer(chatter());
    expect(scheduler.pendingSessions).toBe(0);
    change({ enabled: true });
    scheduler.offer(chatter("20000", true));
    expect(scheduler.pendingSessions).toBe(0);
    scheduler.offer(chatter());
    change({ enabled: false });
    clock.advance(300_000);
    expect(digests).toHaveLength(0);
    expect(scheduler.pendingSessions).toBe(0);
  });

  it("stops every timer on shutdown", () => {
    const { clock, scheduler, digests } = setup({ minMessages: 1 });
    scheduler.offer(chatter("1"));
    scheduler.offer(chatter("2"));
    scheduler.stop();
    expect(clock.pendingTimers).toBe(0);
    clock.advance(1_000_000);
    expect(digests).toHaveLength(0);
  });
});
