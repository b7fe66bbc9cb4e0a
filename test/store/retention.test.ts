import { join } from "node:path";
import type { Database } from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { MessageRetentionSettings } from "../../src/store/config.ts";
import { openSqliteDatabase } from "../../src/store/sqlite/database.ts";
import { MessageRetention } from "../../src/store/sqlite/message-retention.ts";
import { SqliteMessageStore } from "../../src/store/sqlite/message-store.ts";
import { captureLog, groupMessage, makeTempDir, type TempDir, tickOf } from "../support/store.ts";

const DAY_MS = 86_400_000;
const GROUP_A = "onebot:10000:group:1";
const GROUP_B = "onebot:10000:group:2";

describe("message retention (storage.retention)", () => {
  let dir: TempDir;
  let db: Database;
  let store: SqliteMessageStore;
  let settings: MessageRetentionSettings;
  let retention: MessageRetention;

  const append = async (sessionId: string, count: number, time: number, prefix: string) => {
    for (let index = 0; index < count; index++) {
      store.append(groupMessage({ sessionId, messageId: `${prefix}${index}`, time }));
    }
    await store.flush();
  };
  const chats = async () =>
    (await store.sessions({ limit: 10 })).map((s) => [s.sessionId, s.messageCount, s.last.messageId]);

  beforeEach(() => {
    dir = makeTempDir();
    const { logger } = captureLog();
    db = openSqliteDatabase(join(dir.path, "t.db"), logger);
    store = new SqliteMessageStore(db, logger, tickOf(db, logger));
    settings = { days: 0, messagesPerSession: 0 };
    retention = new MessageRetention(
      db,
      () => settings,
      () => true,
      logger,
    );
  });

  afterEach(async () => {
    await store.close();
    db.close();
    dir.remove();
  });

  it("keeps everything with both limits off", async () => {
    await append(GROUP_A, 50, Date.now() - 1_000 * DAY_MS, "a");
    expect(await retention.runPass()).toBe(0);
    expect(await chats()).toEqual([[GROUP_A, 50, "a49"]]);
  });

  it("keeps each chat's newest messagesPerSession, deleting in small steps, and the chat list stays right", async () => {
    await append(GROUP_A, 1_200, Date.now(), "a");
    await append(GROUP_B, 30, Date.now(), "b");
    settings = { days: 0, messagesPerSession: 100 };

    expect(await retention.runPass()).toBe(1_100);
    expect(await chats()).toEqual([
      [GROUP_B, 30, "b29"],
      [GROUP_A, 100, "a1199"],
    ]);
    const oldestKept = (await store.messages({ sessionId: GROUP_A, limit: 500 })).at(-1);
    expect(oldestKept?.messageId).toBe("a1100");
  });

  it("deletes messages older than days, and forgets chats left empty", async () => {
    await append(GROUP_A, 700, Date.now() - 40 * DAY_MS, "old");
    await append(GROUP_B, 10, Date.now() - 40 * DAY_MS, "gone");
    await append(GROUP_A, 5, Date.now(), "new");
    settings = { days: 30, messagesPerSession: 0 };

    expect(await retention.runPass()).toBe(710);
    expect(await chats()).toEqual([[GROUP_A, 5, "new4"]]);
  });

  it("waits while the database cannot be written", async () => {
    const { logger } = captureLog();
    const blocked = new MessageRetention(
      db,
      () => ({ days: 0, messagesPerSession: 1 }),
      () => false,
      logger,
    );
    await append(GROUP_A, 10, Date.now(), "a");
    expect(await blocked.runPass()).toBe(0);
    expect(await chats()).toEqual([[GROUP_A, 10, "a9"]]);
  });
});
