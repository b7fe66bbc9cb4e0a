/**
 * What a turn waits for on PostgreSQL: its start commits with the rows queued before it, not
 * behind the monitor events (whole prompts, gathered and committed on their own).
 */
import pg from "pg";
import { describe, expect, it } from "vitest";
import { openStore } from "../../src/store/open-store.ts";
import { committedRows } from "../support/database-rows.ts";
import { freshPostgresUrl } from "../support/postgres-server.ts";
import { captureLog } from "../support/store.ts";
import { sleep } from "../support/wait.ts";

const SESSION = "onebot:10000:group:20000";

describe("a turn's writes on PostgreSQL", () => {
  it("starts a turn while a monitor events commit is held up", async () => {
    const url = await freshPostgresUrl();
    const stores = await openStore(url, captureLog().logger);
    // Another session holds the events table: the bot's commit of its events waits for it.
    const holder = new pg.Client({ connectionString: url });
    await holder.connect();
    try {
      await holder.query("BEGIN");
      await holder.query("LOCK TABLE monitor_events IN ACCESS EXCLUSIVE MODE");
      stores.monitorEvents.append({ type: "turn.started", time: Date.now(), replyId: "turn-1", data: {} });
      // The events are gathered for a moment (100 ms), then their commit blocks on the lock.
      await sleep(300);

      const started = Date.now();
      await stores.turns.begin(
        {
          replyId: "turn-1",
          sessionId: SESSION,
          status: "running",
          triggerMessageIds: ["1"],
          messageIds: ["1"],
          instanceId: "a",
          createdAt: Date.now(),
        },
        100,
      );
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(await committedRows(url, "SELECT reply_id, status FROM turns")).toEqual([
        { reply_id: "turn-1", status: "running" },
      ]);

      // Once the lock is gone the events are committed as well.
      await holder.query("COMMIT");
      await expect
        .poll(() => committedRows(url, "SELECT reply_id FROM monitor_events"), { timeout: 5_000 })
        .toEqual([{ reply_id: "turn-1" }]);
    } finally {
      await holder.query("ROLLBACK").catch(() => undefined);
      await holder.end();
      await stores.close();
    }
  });
});
