/**
 * The start-up decisions for turns a crash left running, over a real database. The process
 * cases (SIGKILL, restart, the stand-in counting sends) are in test/faults/turns.test.ts; these
 * are the ones a crash can hardly be timed to hit.
 */
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { TurnRecovery } from "../../src/agent/turn-recovery.ts";
import type { Batch } from "../../src/chat/batch.ts";
import type { MonitorInput } from "../../src/monitor/monitor.ts";
import { openStore } from "../../src/store/open-store.ts";
import type { Stores, TurnRecord } from "../../src/store/types.ts";
import { captureLog, groupMessage, makeTempDir, type TempDir } from "../support/store.ts";

const SESSION = "onebot:10000:group:20000";
const NOW = 1_700_000_060_000;

describe("settling interrupted turns at start-up", () => {
  let dir: TempDir;
  let stores: Stores;
  let events: MonitorInput[];
  let reruns: Array<{ batch: Batch; recoveredFrom: string }>;
  let connected: boolean;

  beforeEach(async () => {
    dir = makeTempDir();
    stores = await openStore(`sqlite:${join(dir.path, "tsumugi.db")}`, captureLog().logger);
    events = [];
    reruns = [];
    connected = true;
  });

  afterEach(async () => {
    await stores.close();
    dir.remove();
  });

  async function recover(): Promise<void> {
    const tasks: Array<() => Promise<void>> = [];
    await new TurnRecovery({
      turns: stores.turns,
      sends: stores.sends,
      messages: stores.messages,
      onTimeline: async () => false,
      recoverWithinMs: 120_000,
      inSessionOrder: (_sessionId, task) => tasks.push(task),
      accountReady: async () => connected,
      runAgain: async (batch, interrupted) => {
        reruns.push({ batch, recoveredFrom: interrupted.replyId });
      },
      monitor: { emit: (event) => events.push(event) },
      logger: captureLog().logger,
    }).recover(NOW);
    for (const task of tasks) await task();
  }

  async function interrupted(replyId: string, messageIds = ["7"]): Promise<TurnRecord> {
    for (const id of messageIds) stores.messages.append(groupMessage({ messageId: id, time: NOW - 5_000 }));
    const turn: TurnRecord = {
      replyId,
      sessionId: SESSION,
      status: "running",
      kind: "realtime",
      triggerMessageIds: [messageIds.at(-1)!],
      messageIds,
      createdAt: NOW - 4_000,
    };
    await stores.turns.begin(turn);
    return turn;
  }

  const send = (replyId: string) =>
    stores.sends.pending({
      replyId,
      sessionId: SESSION,
      target: "qq:10000:group:20000",
      contentHash: "h",
      summary: "好",
    });

  it("finishes a turn whose sends all left instead of running it again", async () => {
    await interrupted("r1");
    await stores.sends.sent(await send("r1"), "100001");
    await recover();
    expect(reruns).toEqual([]);
    expect(await stores.turns.get("r1")).toMatchObject({
      status: "replied",
      reason: "finished after a restart: its 1 message(s) had been sent",
    });
    expect(events.map((event) => [event.type, event.replyId, event.data.status])).toEqual([
      ["turn.started", "r1", undefined],
      ["turn.finished", "r1", "replied"],
    ]);
    // The re-announced start still reads like the conversation in the console's turn list.
    expect(events[0]!.data.triggerText).toBe("Alice: hello");
  });

  it("runs again, from its stored messages, a turn whose only send certainly never left", async () => {
    await interrupted("r1", ["6", "7"]);
    await stores.sends.settleFailed(await send("r1"), "failed", "no open connection");
    await recover();
    expect(reruns).toHaveLength(1);
    expect(reruns[0]!.recoveredFrom).toBe("r1");
    expect(reruns[0]!.batch).toMatchObject({ kind: "realtime", sessionId: SESSION, triggerIds: ["7"] });
    expect(reruns[0]!.batch.messages.map((message) => message.messageId)).toEqual(["6", "7"]);
  });

  it("marks a turn interrupted when its account does not come back", async () => {
    await interrupted("r1");
    connected = false;
    await recover();
    expect(reruns).toEqual([]);
    expect(await stores.turns.get("r1")).toMatchObject({
      status: "interrupted",
      reason: "interrupted by a restart; account 10000 did not connect within 60 s",
    });
  });

  it("marks a turn interrupted when its messages are no longer stored", async () => {
    await stores.turns.begin({ ...(await interrupted("r1")), messageIds: ["gone"] });
    await recover();
    expect(reruns).toEqual([]);
    expect(await stores.turns.get("r1")).toMatchObject({
      status: "interrupted",
      reason: "interrupted by a restart; its messages are no longer stored",
    });
  });
});
