import { join } from "node:path";
import BetterSqlite3, { type Database } from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { openSqliteDatabase } from "../../src/store/sqlite/database.ts";
import { SqliteMessageStore } from "../../src/store/sqlite/message-store.ts";
import { captureLog, groupMessage, makeTempDir, type TempDir, tickOf } from "../support/store.ts";

const nextTick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("SqliteMessageStore", () => {
  let dir: TempDir;
  let db: Database;

  beforeEach(() => {
    dir = makeTempDir();
    db = openSqliteDatabase(join(dir.path, "messages.db"), captureLog().logger);
  });

  afterEach(() => {
    if (db.open) db.close();
    dir.remove();
  });

  it("commits a thousand appends made in one tick in a single transaction", async () => {
    const tick = tickOf(db);
    const realTransaction = db.transaction.bind(db);
    let transactionsRun = 0;
    vi.spyOn(db, "transaction").mockImplementation(((fn: (...args: unknown[]) => unknown) =>
      realTransaction((...args: unknown[]) => {
        transactionsRun++;
        return fn(...args);
      })) as Database["transaction"]);
    const store = new SqliteMessageStore(db, captureLog().logger, tick);
    const reader = new BetterSqlite3(db.name, { readonly: true });
    const countRows = () => (reader.prepare("SELECT COUNT(*) AS n FROM messages").get() as { n: number }).n;

    try {
      for (let index = 0; index < 1000; index++) store.append(groupMessage({ messageId: String(index) }));
      expect(countRows()).toBe(0);

      await nextTick();
      expect(transactionsRun).toBe(1);
      expect(countRows()).toBe(1000);
      const all = await store.recent({ sessionId: "onebot:10000:group:20000", limit: 1000 });
      expect(all.map((message) => message.messageId)).toEqual(
        Array.from({ length: 1000 }, (_, i) => String(i)),
      );
    } finally {
      reader.close();
    }
  });
});
