/**
 * Fenced session leases on PostgreSQL: a turn's start and each send's `pending` carry
 * the token of the lease they run under, and the database refuses them — in the same statement,
 * writing nothing — once a newer token was recorded for the session by another instance.
 */
import { describe, expect, it } from "vitest";
import { openStore } from "../../src/store/open-store.ts";
import { SessionFenced } from "../../src/store/session-fence.ts";
import type { TurnRecord } from "../../src/store/types.ts";
import { committedRows } from "../support/database-rows.ts";
import { freshPostgresUrl } from "../support/postgres-server.ts";
import { captureLog } from "../support/store.ts";

const SESSION = "onebot:10000:group:20000";

const runningTurn = (replyId: string): TurnRecord => ({
  replyId,
  sessionId: SESSION,
  status: "running",
  triggerMessageIds: ["1"],
  messageIds: ["1"],
  instanceId: "a",
  createdAt: 1_700_000_000_000,
});

const send = (replyId: string, fence: number) => ({
  replyId,
  sessionId: SESSION,
  target: "onebot:10000:group:20000",
  contentHash: "hash",
  summary: "你好",
  fence,
});

describe("fenced session leases on PostgreSQL", () => {
  it("refuses a turn's start and its sends under a lease token older than the session's newest", async () => {
    const url = await freshPostgresUrl();
    const stores = await openStore(url, captureLog().logger);
    try {
      // Instance a took the session with token 100 and started a turn; b took it over with 200.
      await stores.turns.advanceFence(SESSION, 100);
      await stores.turns.begin(runningTurn("turn-a"), 100);
      await stores.turns.advanceFence(SESSION, 200);

      // a wakes up: its sends and its next turn are refused, and nothing of them is written.
      await expect(stores.sends.pending(send("turn-a", 100))).rejects.toBeInstanceOf(SessionFenced);
      await expect(stores.turns.begin(runningTurn("turn-a2"), 100)).rejects.toBeInstanceOf(SessionFenced);
      await expect(stores.turns.advanceFence(SESSION, 150)).rejects.toBeInstanceOf(SessionFenced);

      // b's steps go ahead.
      await stores.turns.begin(runningTurn("turn-b"), 200);
      const sendId = await stores.sends.pending(send("turn-b", 200));
      expect(sendId).toBeGreaterThan(0);

      expect(await committedRows(url, "SELECT reply_id FROM turns ORDER BY reply_id")).toEqual([
        { reply_id: "turn-a" },
        { reply_id: "turn-b" },
      ]);
      expect(await committedRows(url, "SELECT reply_id FROM sends")).toEqual([{ reply_id: "turn-b" }]);
      expect(await committedRows(url, "SELECT session_id, token FROM session_fences")).toEqual([
        { session_id: SESSION, token: 200 },
      ]);
    } finally {
      await stores.close();
    }
  });
});
