import { join } from "node:path";
import type { Database } from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSqliteDatabase } from "../../src/store/sqlite/database.ts";
import { SqliteMessageStore } from "../../src/store/sqlite/message-store.ts";
import { captureLog, groupMessage, makeTempDir, type TempDir, tickOf } from "../support/store.ts";

const ROWS = 200_000;
const BUSY_CHATS = 20;
const QUIET_CHAT = "onebot:10000:group:quiet";

/**
 * The fastest of a few runs, in milliseconds: steady against a busy machine. Through an index
 * each query takes well under a millisecond here; reading every message took 20–40 ms.
 */
async function fastestOf(run: () => Promise<unknown>, times = 5): Promise<number> {
  let fastest = Number.POSITIVE_INFINITY;
  for (let index = 0; index < times; index++) {
    const started = performance.now();
    await run();
    fastest = Math.min(fastest, performance.now() - started);
  }
  return fastest;
}

describe("the console's chat queries on a large database", () => {
  let dir: TempDir;
  let db: Database;
  let store: SqliteMessageStore;

  beforeAll(async () => {
    dir = makeTempDir();
    const { logger } = captureLog();
    db = openSqliteDatabase(join(dir.path, "t.db"), logger);
    store = new SqliteMessageStore(db, logger, tickOf(db, logger, 10_000));
    // The quiet chat's few messages are the oldest: paging it must not walk everyone else's.
    for (let index = 0; index < 5; index++)
      store.append(groupMessage({ sessionId: QUIET_CHAT, messageId: `q${index}` }));
    for (let index = 0; index < ROWS; index++) {
      store.append(
        groupMessage({ sessionId: `onebot:10000:group:${index % BUSY_CHATS}`, messageId: String(index) }),
      );
    }
    await store.flush();
  }, 60_000);

  afterAll(async () => {
    await store.close();
    db.close();
    dir.remove();
  });

  it("lists chats by latest activity with their counts without reading every message", async () => {
    const sessions = await store.sessions({ limit: 100 });
    expect(sessions).toHaveLength(BUSY_CHATS + 1);
    expect(sessions[0]?.last.messageId).toBe(String(ROWS - 1));
    expect(sessions.at(-1)).toMatchObject({ sessionId: QUIET_CHAT, messageCount: 5 });
    expect(await fastestOf(() => store.sessions({ limit: 100 }))).toBeLessThan(5);
    expect(await fastestOf(() => store.sessions({ search: "quiet", limit: 100 }))).toBeLessThan(5);
  });

  it("pages one chat's messages through its index", async () => {
    expect((await store.messages({ sessionId: QUIET_CHAT, limit: 100 })).map((m) => m.messageId)).toEqual([
      "q4",
      "q3",
      "q2",
      "q1",
      "q0",
    ]);
    expect(await fastestOf(() => store.messages({ sessionId: QUIET_CHAT, limit: 100 }))).toBeLessThan(5);
    expect(await fastestOf(() => store.messages({ limit: 100 }))).toBeLessThan(5);
  });
});
