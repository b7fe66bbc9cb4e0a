import { describe, expect, it } from "vitest";
import { openStore } from "../../src/store/open-store.ts";
import { PgDatabase } from "../../src/store/postgres/database.ts";
import { PG_MIGRATIONS } from "../../src/store/postgres/migrations.ts";
import { DEFAULT_OPTIONS } from "../../src/store/store-options.ts";
import { committedRows } from "../support/database-rows.ts";
import { freshPostgresUrl } from "../support/postgres-server.ts";
import { captureLog, groupMessage } from "../support/store.ts";

const PASSWORD = "s3cret-Pa55word";

/** `url` with a password (the test server trusts every login, so it still opens). */
function withPassword(url: string, scheme = "postgres:"): string {
  const parsed = new URL(url);
  parsed.password = PASSWORD;
  return `${scheme}${parsed.href.slice(parsed.protocol.length)}`;
}

describe("opening PostgreSQL storage", () => {
  it("migrates once when several instances open the same new database together", async () => {
    const url = await freshPostgresUrl();
    const logs = [captureLog(), captureLog(), captureLog()];
    const opened = await Promise.all(logs.map((log) => PgDatabase.open(url, log.logger)));
    await Promise.all(opened.map((db) => db.close()));

    const versions = await committedRows(url, "SELECT version FROM schema_migrations ORDER BY version");
    expect(versions.map((row) => row.version)).toEqual(PG_MIGRATIONS.map((migration) => migration.version));
    const applied = logs.flatMap((log) =>
      log.lines.filter((line) => line.msg === "applied database migration"),
    );
    expect(applied).toHaveLength(PG_MIGRATIONS.length);
  });

  it("refuses a database whose schema is newer than this build", async () => {
    const url = await freshPostgresUrl();
    await (await PgDatabase.open(url, captureLog().logger)).close();
    const db = await PgDatabase.open(url, captureLog().logger);
    await db.query("INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, 'future', 0)");
    await db.close();

    await expect(PgDatabase.open(url, captureLog().logger)).rejects.toThrow(
      /database schema version 999 is newer than this build supports/,
    );
  });

  it("turns JIT compilation off on every connection: it cost each turn's memory search tens of ms", async () => {
    const db = await PgDatabase.open(await freshPostgresUrl(), captureLog().logger);
    // Two connections at once: the pool's and a transaction's.
    const jit = await db.transaction(async (tx) => Promise.all([db.query("SHOW jit"), tx.query("SHOW jit")]));
    await db.close();
    expect(jit).toEqual([[{ jit: "off" }], [{ jit: "off" }]]);
  });

  it("plans a prepared statement once per connection: the memory search was planned anew on every turn", async () => {
    const db = await PgDatabase.open(await freshPostgresUrl(), captureLog().logger);
    const sql =
      "SELECT id FROM memories m WHERE m.subject = ANY($1::text[]) ORDER BY confirmed_at DESC LIMIT 5";
    // The same name on a pool connection and in a transaction: prepared on each, both answering.
    const answers = await db.transaction(async (tx) =>
      Promise.all([db.query(sql, [["qq:1"]], "test-recent"), tx.query(sql, [["qq:2"]], "test-recent")]),
    );
    const [mode] = await db.query<{ plan_cache_mode: string }>("SHOW plan_cache_mode");
    const plan = await db.transaction(async (tx) => {
      await tx.query("PREPARE shown (text[]) AS SELECT id FROM memories m WHERE m.subject = ANY($1)");
      return tx.query<{ "QUERY PLAN": string }>("EXPLAIN EXECUTE shown('{qq:1}')");
    });
    await db.close();
    expect(answers).toEqual([[], []]);
    expect(mode?.plan_cache_mode).toBe("force_generic_plan");
    // A generic plan keeps the parameter in it, rather than the value it was run with.
    expect(plan.map((row) => row["QUERY PLAN"]).join("\n")).toContain("$1");
  });

  it("keeps the emotion words of stickers kept before they were stored one per line", async () => {
    const url = await freshPostgresUrl();
    const before = await PgDatabase.open(
      url,
      captureLog().logger,
      PG_MIGRATIONS.filter((migration) => migration.version <= 6),
    );
    await before.query(
      `INSERT INTO stickers (sha256, mime, bytes, description, emotions, created_at)
       VALUES ('sha-1', 'image/png', '\\x00', '开心', ARRAY['开心', '得意'], 1),
              ('sha-2', 'image/png', '\\x00', '无语', ARRAY[]::text[], 2)`,
    );
    await before.close();

    const stores = await openStore(url, captureLog().logger, DEFAULT_OPTIONS);
    const kept = await stores.stickers.list();
    await stores.close();
    expect(kept.sort((a, b) => a.createdAt - b.createdAt).map((sticker) => sticker.emotions)).toEqual([
      ["开心", "得意"],
      [],
    ]);
    expect(await committedRows(url, "SELECT emotions FROM stickers ORDER BY created_at")).toEqual([
      { emotions: "开心\n得意" },
      { emotions: "" },
    ]);
  });

  it("accepts postgresql:// and never shows the password in logs or errors", async () => {
    const url = withPassword(await freshPostgresUrl(), "postgresql:");
    const log = captureLog();
    const stores = await openStore(url, log.logger, DEFAULT_OPTIONS);
    stores.messages.append(groupMessage());
    await stores.close();
    expect(await committedRows(url, "SELECT COUNT(*) AS n FROM messages")).toEqual([{ n: 1 }]);
    const database = new URL(url).pathname.slice(1);
    expect(log.lines.find((line) => line.msg === "storage opened")?.database).toMatch(
      new RegExp(`^127\\.0\\.0\\.1:\\d+/${database}$`),
    );

    // Nothing listens on port 1: the error names the server, not the URL.
    const unreachable = new URL(url);
    unreachable.port = "1";
    const failure = openStore(unreachable.href, log.logger, DEFAULT_OPTIONS);
    await expect(failure).rejects.toThrow(
      `storage.url: cannot open PostgreSQL 127.0.0.1:1/${database}: connect ECONNREFUSED`,
    );
    const error = await failure.catch((caught: unknown) => caught);
    expect(JSON.stringify(log.lines)).not.toContain(PASSWORD);
    expect(String(error)).not.toContain(PASSWORD);
  });
});
