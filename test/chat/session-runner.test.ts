import { describe, expect, it } from "vitest";
import type { Batch, OmittedMessages } from "../../src/chat/batch.ts";
import type { BatchBounds } from "../../src/chat/batch-bounds.ts";
import { KeyedQueue } from "../../src/chat/keyed-queue.ts";
import { SessionRunner } from "../../src/chat/session-runner.ts";
import { groupChatMessage } from "../support/messages.ts";
import { sleep, waitFor } from "../support/wait.ts";

const BOUNDS: BatchBounds = { maxMessages: 30, maxChars: 8_000, maxMessagesPerUser: 10 };
const SESSION = "onebot:10000:group:20000";

function trigger(userId: string, text: string): Batch {
  const message = groupChatMessage({ userId, text });
  return { kind: "realtime", sessionId: SESSION, messages: [message], triggerIds: [message.messageId] };
}

const flood = (count: number) =>
  Array.from({ length: count }, (_, i) => trigger("1", `刷屏 ${i} ${"啊".repeat(400)}`));

/** A runner whose turns wait until released; records what each turn was given and what was left out. */
function setup() {
  const turns: Batch[] = [];
  const omissions: OmittedMessages[] = [];
  let release = () => {};
  let absorb: (current: Batch) => Batch | undefined = () => undefined;
  const runner = new SessionRunner({
    queue: new KeyedQueue(() => {}),
    runTurn: ({ batch, absorbInto }) => {
      turns.push(batch);
      absorb = absorbInto;
      return new Promise<void>((resolve) => {
        release = resolve;
      });
    },
    bounds: () => BOUNDS,
    onOmitted: (_batch, omitted) => omissions.push(omitted),
  });
  const waitForTurns = (count: number) => waitFor(() => turns.length >= count, 5_000, `${count} turns`);
  return {
    runner,
    turns,
    omissions,
    release: () => release(),
    absorb: (current: Batch) => absorb(current),
    waitForTurns,
  };
}

describe("SessionRunner", () => {
  it("bounds the batches that waited for a busy session, keeping other senders, and reports the rest once", async () => {
    const { runner, turns, omissions, release, waitForTurns } = setup();
    runner.submit(trigger("2", "第一轮"));
    await waitForTurns(1);
    const spam = flood(300);
    const bob = trigger("3", "Bob 也有问题");
    for (const batch of spam.slice(0, 200)) runner.submit(batch);
    runner.submit(bob);
    for (const batch of spam.slice(200)) runner.submit(batch);
    expect(omissions).toEqual([]);

    release();
    await waitForTurns(2);
    const next = turns[1]!;
    expect(next.messages.length).toBeLessThanOrEqual(BOUNDS.maxMessages);
    expect(next.messages).toContain(bob.messages[0]);
    expect(next.messages.filter((m) => m.userId === "1").length).toBeLessThanOrEqual(
      BOUNDS.maxMessagesPerUser,
    );
    expect(next.messages.at(-1)).toBe(spam[299]!.messages[0]);
    expect(omissions).toHaveLength(1);
    expect(omissions[0]!.messageIds).toHaveLength(301 - next.messages.length);
    expect(omissions[0]!.triggerIds).toEqual(omissions[0]!.messageIds);
    release();
  });

  it("folds what arrives during a turn into it within the bounds, reporting only what is newly left out", async () => {
    const { runner, turns, omissions, release, absorb, waitForTurns } = setup();
    runner.submit(trigger("2", "在吗"));
    await waitForTurns(1);
    expect(absorb(turns[0]!)).toBeUndefined();

    const first = flood(15);
    for (const batch of first) runner.submit(batch);
    const once = absorb(turns[0]!)!;
    expect(once.messages).toContain(turns[0]!.messages[0]);
    expect(once.messages.filter((m) => m.userId === "1")).toHaveLength(10);
    expect(omissions.map((o) => o.messageIds.length)).toEqual([5]);

    const second = flood(15);
    for (const batch of second) runner.submit(batch);
    const twice = absorb(once)!;
    expect(twice.messages).toContain(turns[0]!.messages[0]);
    expect(twice.messages.filter((m) => m.userId === "1")).toEqual(second.slice(5).map((b) => b.messages[0]));
    // The 5 that waited in line and the 10 of the first fold that newer ones displaced.
    expect(omissions.map((o) => o.messageIds.length)).toEqual([5, 15]);
    expect(twice.omitted!.messageIds).toHaveLength(20);
    // Nothing was waiting: the runner schedules no second turn for the folded messages.
    release();
    await sleep(10);
    expect(turns).toHaveLength(1);
  });
});
