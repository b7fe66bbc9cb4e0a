/**
 * What a turn waits for on PostgreSQL: its start commits with the rows queued before it, not
 * behind the monitor events (whole prompts, gathered and committed on their own) nor behind the
 * usage records of its model calls (gathered the same way); the reads of
 * its context go to the server together, not one after the other.
 */
import pg from "pg";
import { describe, expect, it } from "vitest";
import { openStore } from "../../src/store/open-store.ts";
import type { Stores } from "../../src/store/types.ts";
import { askInGroup } from "../reply/extension-fixtures.ts";
import { committedRows } from "../support/database-rows.ts";
import { freshPostgresUrl } from "../support/postgres-server.ts";
import { startScene } from "../support/scene.ts";
import { captureLog } from "../support/store.ts";
import { sleep } from "../support/wait.ts";

const SESSION = "onebot:10000:group:20000";

/** How long each slowed read of a turn's context takes. */
const SLOW_READ_S = 2;

/**
 * Makes every read of `table` take SLOW_READ_S: the table becomes a view over its rows that
 * sleeps first (the bot's statements name the table, and are parsed again after the change).
 */
async function slowReads(url: string, table: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`ALTER TABLE ${table} RENAME TO ${table}_rows`);
    // A function's rows are all read when the view is read, even when no row matches.
    await client.query(
      `CREATE FUNCTION ${table}_slowly() RETURNS SETOF ${table}_rows LANGUAGE plpgsql AS $$
       BEGIN PERFORM pg_sleep(${SLOW_READ_S}); RETURN QUERY SELECT * FROM ${table}_rows; END $$`,
    );
    await client.query(`CREATE VIEW ${table} AS SELECT * FROM ${table}_slowly()`);
  } finally {
    await client.end();
  }
}

/** Starts a running turn in SESSION; resolves with how long its start took, in ms. */
async function timedTurnStart(stores: Stores): Promise<number> {
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
  return Date.now() - started;
}

/**
 * Runs `body` on a fresh database's stores while another session holds `table` locked: the
 * bot's commits that write it wait until `unlock`.
 */
async function withTableLocked(
  table: string,
  body: (scene: { url: string; stores: Stores; unlock: () => Promise<unknown> }) => Promise<void>,
): Promise<void> {
  const url = await freshPostgresUrl();
  const stores = await openStore(url, captureLog().logger);
  const holder = new pg.Client({ connectionString: url });
  await holder.connect();
  try {
    await holder.query("BEGIN");
    await holder.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
    await body({ url, stores, unlock: () => holder.query("COMMIT") });
  } finally {
    await holder.query("ROLLBACK").catch(() => undefined);
    await holder.end();
    await stores.close();
  }
}

describe("a turn's writes on PostgreSQL", () => {
  it("starts a turn while a monitor events commit is held up", async () => {
    await withTableLocked("monitor_events", async ({ url, stores, unlock }) => {
      stores.monitorEvents.append({ type: "turn.started", time: Date.now(), replyId: "turn-1", data: {} });
      // The events are gathered for a moment (100 ms), then their commit blocks on the lock.
      await sleep(300);

      expect(await timedTurnStart(stores)).toBeLessThan(2_000);
      expect(await committedRows(url, "SELECT reply_id, status FROM turns")).toEqual([
        { reply_id: "turn-1", status: "running" },
      ]);

      // Once the lock is gone the events are committed as well.
      await unlock();
      await expect
        .poll(() => committedRows(url, "SELECT reply_id FROM monitor_events"), { timeout: 5_000 })
        .toEqual([{ reply_id: "turn-1" }]);
    });
  });

  it("gathers a turn's usage records off its path: the turn's next commit does not wait behind theirs", async () => {
    await withTableLocked("llm_usage", async ({ url, stores, unlock }) => {
      // The planner's and the replyer's calls are recorded; then the next step of the turn commits.
      for (const task of ["planner", "replyer"]) {
        stores.usage.record({
          time: Date.now(),
          task,
          provider: "p",
          model: "m",
          promptTokens: 500,
          completionTokens: 10,
          latencyMs: 5,
          success: true,
          replyId: "turn-1",
          sessionId: SESSION,
        });
      }
      await sleep(10); // committed at once, the records' commit would be waiting on the lock now
      expect(await timedTurnStart(stores)).toBeLessThan(1_000);

      // Once the lock is gone both records are committed.
      await unlock();
      await expect
        .poll(() => committedRows(url, "SELECT task FROM llm_usage ORDER BY task"), { timeout: 5_000 })
        .toEqual([{ task: "planner" }, { task: "replyer" }]);
    });
  });

  it("reads a turn's memories and the group's expressions at once: a slow server costs one wait, not two", async () => {
    const url = await freshPostgresUrl();
    const scene = await startScene({
      config: { storage: { url }, chat: { expressions: { enabled: true } } },
    });
    try {
      // The memory search and the expressions section each read their table.
      await slowReads(url, "memories");
      await slowReads(url, "group_expressions");
      scene.llm.enqueue({ toolCalls: [{ name: "reply", arguments: {} }] }, { text: "在的" });

      const asked = Date.now();
      askInGroup(scene.qq, "在吗");
      await scene.qq.waitForSent((sent) => sent.text === "在的", 10_000);
      // One after the other, the two reads alone would take twice SLOW_READ_S.
      expect(Date.now() - asked).toBeLessThan(SLOW_READ_S * 1_000 * 1.75);
    } finally {
      await scene.close();
    }
    // Start-up, two table changes and a turn on a shared machine: more than the default 20 s.
  }, 40_000);
});
