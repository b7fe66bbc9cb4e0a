import pg from "pg";
import { afterEach, describe, expect, inject, it } from "vitest";
import { openStore } from "../../src/store/open-store.ts";
import { PgDatabase } from "../../src/store/postgres/database.ts";
import { DEFAULT_OPTIONS } from "../../src/store/store-options.ts";
import type { Stores } from "../../src/store/types.ts";
import { committedRows } from "../support/database-rows.ts";
import { freshPostgresUrl } from "../support/postgres-server.ts";
import { type CapturedLog, captureLog, groupMessage } from "../support/store.ts";
import { waitFor } from "../support/wait.ts";

/**
 * Takes the database away as an outage would, on the run's shared server: new connections are
 * refused and the open ones are ended, or the database is given back.
 */
async function setReachable(url: string, reachable: boolean): Promise<void> {
  const database = new URL(url).pathname.slice(1);
  const admin = new pg.Client({ connectionString: inject("postgresAdminUrl") });
  await admin.connect();
  try {
    await admin.query(`ALTER DATABASE ${admin.escapeIdentifier(database)} ALLOW_CONNECTIONS ${reachable}`);
    if (!reachable) {
      await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", [
        database,
      ]);
    }
  } finally {
    await admin.end();
  }
}

const linesSaying = (log: CapturedLog, text: string) => log.lines.filter((line) => line.msg === text);

describe("PostgreSQL storage outages", () => {
  let stores: Stores | undefined;
  let url: string;

  afterEach(async () => {
    await setReachable(url, true);
    await stores?.close();
    stores = undefined;
  });

  it("keeps writes in memory while the database is unreachable and writes them all once it is back", async () => {
    url = await freshPostgresUrl();
    const log = captureLog();
    stores = await openStore(url, log.logger, DEFAULT_OPTIONS);
    stores.messages.append(groupMessage({ messageId: "before" }));
    await stores.messages.flush();

    await setReachable(url, false);
    stores.messages.append(groupMessage({ messageId: "during-1" }));
    stores.messages.append(groupMessage({ messageId: "during-2" }));
    await stores.messages.flush();
    expect(stores.status()).toMatchObject({ state: "degraded", spooled: 2, dropped: 0 });
    expect(stores.status().reason).toMatch(/not currently accepting connections|terminat/);
    // A turn cannot start while its start cannot be committed.
    await expect(
      stores.turns.begin({
        replyId: "r1",
        sessionId: "onebot:10000:group:20000",
        status: "running",
        triggerMessageIds: ["during-2"],
        createdAt: Date.now(),
      }),
    ).rejects.toThrow();

    await setReachable(url, true);
    await waitFor(() => stores?.status().state === "ok", 5_000, "storage recovered");
    const rows = await committedRows(url, "SELECT message_id FROM messages ORDER BY id");
    expect(rows.map((row) => row.message_id)).toEqual(["before", "during-1", "during-2"]);
    expect(await committedRows(url, "SELECT message_count FROM chat_sessions")).toEqual([
      { message_count: 3 },
    ]);
    expect(
      linesSaying(log, "storage degraded: cannot write the database; rows are kept in memory and retried"),
    ).toHaveLength(1);
    expect(linesSaying(log, "storage recovered: the spooled rows are written")).toHaveLength(1);
  });

  it("bounds the spool during an outage, dropping the oldest messages that triggered nothing first", async () => {
    url = await freshPostgresUrl();
    const triggering = new Set(["0", "1"]);
    stores = await openStore(url, captureLog().logger, {
      ...DEFAULT_OPTIONS,
      spoolLimit: 100,
      isTrigger: (message) => triggering.has(message.messageId),
    });
    await setReachable(url, false);
    for (let index = 0; index < 150; index++)
      stores.messages.append(groupMessage({ messageId: String(index) }));
    await stores.messages.flush();
    expect(stores.status()).toMatchObject({ state: "degraded", spooled: 100, dropped: 50 });

    await setReachable(url, true);
    await waitFor(() => stores?.status().state === "ok", 5_000, "storage recovered");
    const stored = (await committedRows(url, "SELECT message_id FROM messages ORDER BY id")).map((row) =>
      Number(row.message_id),
    );
    const untriggeredKept = Array.from({ length: 98 }, (_, index) => 52 + index);
    expect(stored).toEqual([0, 1, ...untriggeredKept]);
  });

  it("keeps a burst larger than the spool while the database can be written", async () => {
    url = await freshPostgresUrl();
    stores = await openStore(url, captureLog().logger, { ...DEFAULT_OPTIONS, spoolLimit: 100 });
    for (let index = 0; index < 150; index++)
      stores.messages.append(groupMessage({ messageId: String(index) }));
    await stores.messages.flush();
    expect(await committedRows(url, "SELECT COUNT(*) AS n FROM messages")).toEqual([{ n: 150 }]);
    expect(stores.status()).toEqual({ state: "ok", spooled: 0, dropped: 0 });
  });

  it("quarantines a row the database refuses without losing the rows written beside it", async () => {
    url = await freshPostgresUrl();
    stores = await openStore(url, captureLog().logger, DEFAULT_OPTIONS);
    // PostgreSQL text cannot hold NUL, which SQLite stores: a row only this backend refuses.
    stores.messages.append(groupMessage({ messageId: "1" }));
    stores.messages.append(groupMessage({ messageId: "2", senderName: "Bo\u0000b" }));
    stores.messages.append(groupMessage({ messageId: "3" }));

    const kept = await stores.messages.recent({ sessionId: "onebot:10000:group:20000", limit: 10 });
    expect(kept.map((message) => message.messageId)).toEqual(["1", "3"]);
    const quarantined = await committedRows(url, "SELECT store, row FROM quarantine");
    expect(quarantined).toHaveLength(1);
    expect(quarantined[0]?.store).toBe("messages");
    expect(String(quarantined[0]?.row)).toContain('"messageId":"2"');
    expect(stores.status().state).toBe("ok");
  });

  it("commits a turn's start with other stores' rows, setting aside only the row refused among them", async () => {
    url = await freshPostgresUrl();
    stores = await openStore(url, captureLog().logger, DEFAULT_OPTIONS);
    // One transaction of single statements (sent all at once) in which one message is refused.
    stores.messages.append(groupMessage({ messageId: "1" }));
    stores.messages.append(groupMessage({ messageId: "2", senderName: "Bo\u0000b" }));
    stores.usage.record({
      time: Date.now(),
      task: "planner",
      provider: "main",
      model: "m",
      promptTokens: 10,
      completionTokens: 1,
      latencyMs: 5,
      success: true,
    });
    await stores.turns.begin({
      replyId: "r1",
      sessionId: "onebot:10000:group:20000",
      status: "running",
      triggerMessageIds: ["1"],
      createdAt: Date.now(),
    });

    expect(await committedRows(url, "SELECT reply_id, status FROM turns")).toEqual([
      { reply_id: "r1", status: "running" },
    ]);
    expect(await committedRows(url, "SELECT message_id FROM messages")).toEqual([{ message_id: "1" }]);
    // Usage records gather for a moment before their own commit.
    await expect
      .poll(() => committedRows(url, "SELECT COUNT(*) AS n FROM llm_usage"), { timeout: 5_000 })
      .toEqual([{ n: 1 }]);
    const quarantined = await committedRows(url, "SELECT store, row FROM quarantine");
    expect(quarantined.map((row) => row.store)).toEqual(["messages"]);
    expect(String(quarantined[0]?.row)).toContain('"messageId":"2"');
  });
});

describe("a PostgreSQL connection lost in the middle of a transaction", () => {
  it("fails that transaction and nothing else: the process keeps running and the next query is answered", async () => {
    const url = await freshPostgresUrl();
    const log = captureLog();
    const db = await PgDatabase.open(url, log.logger);
    try {
      // The server goes away (a restart, a crash) while a transaction waits on its statement.
      const outcome = db
        .transaction((tx) => tx.query("SELECT pg_sleep(10)"))
        .then(
          () => "committed",
          (error: Error) => error.message,
        );
      await waitFor(
        async () => (await backendsRunning(url, "pg_sleep")) === 1,
        5_000,
        "the statement to run",
      );
      await setReachable(url, false);
      expect(await outcome).toMatch(/terminat/);
      await setReachable(url, true);
      expect(await db.query<{ answer: number }>("SELECT 1 AS answer")).toEqual([{ answer: 1 }]);
    } finally {
      await setReachable(url, true);
      await db.close();
    }
  });
});

/** How many of the database's connections run a statement containing `text` now. */
async function backendsRunning(url: string, text: string): Promise<number> {
  const rows = await committedRows(
    url,
    `SELECT pid FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%${text}%' AND pid <> pg_backend_pid()`,
  );
  return rows.length;
}
