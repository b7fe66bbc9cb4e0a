import { join } from "node:path";
import BetterSqlite3, { type Database } from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Segment } from "../../src/message/segment.ts";
import { openSqliteDatabase } from "../../src/store/sqlite/database.ts";
import { SqliteMessageStore } from "../../src/store/sqlite/message-store.ts";
import { captureLog, groupMessage, makeTempDir, type TempDir, tickOf } from "../support/store.ts";

const nextTick = () => new Promise<void>((resolve) => setImmediate(resolve));

const EVERY_SEGMENT: Segment[] = [
  { type: "text", data: { text: '你好 "quoted" \n 🌸' } },
  { type: "face", data: { id: "178" } },
  {
    type: "image",
    data: { file: "abc.image", url: "https://example.com/a.png", summary: "[动画表情]", sub_type: "1" },
  },
  { type: "record", data: { file: "voice.amr", url: "https://example.com/v.amr" } },
  { type: "video", data: { file: "clip.mp4" } },
  { type: "at", data: { qq: "9223372036854775807", name: "Bob" } },
  { type: "reply", data: { id: "-1234567890123456789" } },
  { type: "forward", data: { id: "7318462934586791234" } },
  {
    type: "node",
    data: {
      user_id: "10001",
      nickname: "Carol",
      content: [
        { type: "text", data: { text: "inside" } },
        { type: "node", data: { id: "42", content: [{ type: "face", data: { id: "1" } }] } },
      ],
    },
  },
  { type: "file", data: { file: "a.pdf", name: "a.pdf", file_id: "/abc", file_size: "1024" } },
  { type: "json", data: { data: '{"app":"com.tencent.miniapp","n":12345678901234567890}' } },
  { type: "xml", data: { data: '<msg serviceID="1"><item/></msg>' } },
  { type: "poke", data: { type: "126", id: "2003" } },
  { type: "mface", data: { emoji_id: "e1", emoji_package_id: "p1", key: "k", summary: "[嘿]" } },
  { type: "markdown", data: { content: "# title\n*bold*" } },
  { type: "dice", data: { result: "6" } },
  { type: "rps", data: { result: "2" } },
  { type: "shake", data: { nested: { list: [1, "2", null], flag: true } }, unknown: true },
];

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

  it("round-trips every segment type exactly, readable before the batch is written", async () => {
    const store = new SqliteMessageStore(db, captureLog().logger, tickOf(db));
    const message = groupMessage({ messageId: "1234567890123456789", segments: EVERY_SEGMENT });
    store.append(message);

    const found = await store.findByMessageId(message.sessionId, "1234567890123456789");
    expect(found).toEqual({ ...message, rowId: expect.any(Number) });
    expect(found?.segments).toStrictEqual(EVERY_SEGMENT);
    expect(await store.recent({ sessionId: message.sessionId, limit: 10 })).toEqual([found]);
  });

  it("keeps a 19-digit message id and ids beyond 2^53 identical", async () => {
    const store = new SqliteMessageStore(db, captureLog().logger, tickOf(db));
    const id = "9007199254740993123";
    store.append(
      groupMessage({ messageId: id, userId: "18446744073709551615", groupId: "-9007199254740993" }),
    );
    await store.flush();

    const found = await store.findByMessageId("onebot:10000:group:20000", id);
    expect(found?.messageId).toBe(id);
    expect(found?.userId).toBe("18446744073709551615");
    expect(found?.groupId).toBe("-9007199254740993");
    expect(await store.findByMessageId("onebot:10000:group:20000", "9007199254740993124")).toBeUndefined();
  });

  it("round-trips private messages (no group id) and the bot's own messages", async () => {
    const store = new SqliteMessageStore(db, captureLog().logger, tickOf(db));
    const { groupId: _group, ...groupFields } = groupMessage();
    const message = {
      ...groupFields,
      sessionId: "onebot:10000:private:30000",
      chatType: "private" as const,
      fromSelf: true,
      userId: "10000",
    };
    store.append(message);

    const [stored] = await store.recent({ sessionId: message.sessionId, limit: 1 });
    expect(stored).toStrictEqual({ ...message, rowId: expect.any(Number) });
  });

  it("returns the newest `limit` messages of one session, oldest first, without other sessions", async () => {
    const store = new SqliteMessageStore(db, captureLog().logger, tickOf(db));
    for (let index = 0; index < 30; index++) {
      store.append(groupMessage({ messageId: `a${index}` }));
      store.append(
        groupMessage({ sessionId: "onebot:10000:group:99999", groupId: "99999", messageId: `b${index}` }),
      );
    }

    const recent = await store.recent({ sessionId: "onebot:10000:group:20000", limit: 5 });
    expect(recent.map((message) => message.messageId)).toEqual(["a25", "a26", "a27", "a28", "a29"]);
    expect(await store.recent({ sessionId: "onebot:10000:group:20000", limit: 100 })).toHaveLength(30);
    expect(await store.recent({ sessionId: "onebot:10000:group:20000", limit: 0 })).toEqual([]);
    expect(await store.recent({ sessionId: "onebot:10000:group:404", limit: 5 })).toEqual([]);
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

  it("stores the neighbours of a row that cannot be written and quarantines only that row", async () => {
    const log = captureLog();
    const store = new SqliteMessageStore(db, log.logger, tickOf(db, log.logger));
    // A segment nested deeper than JSON.stringify can go, and a row the schema refuses.
    let deep: { text: string } = { text: "bottom" };
    for (let depth = 0; depth < 100_000; depth++) deep = { text: "", inner: deep } as { text: string };
    store.append(groupMessage({ messageId: "before" }));
    store.append(groupMessage({ messageId: "too-deep", segments: [{ type: "text", data: deep }] }));
    store.append(groupMessage({ messageId: "no-sender", senderName: null as unknown as string }));
    store.append(groupMessage({ messageId: "after" }));
    await nextTick();

    const stored = db.prepare("SELECT message_id FROM messages ORDER BY id").all() as Array<{
      message_id: string;
    }>;
    expect(stored.map((row) => row.message_id)).toEqual(["before", "after"]);
    const quarantined = db.prepare("SELECT store, error, row FROM quarantine ORDER BY id").all() as Array<{
      store: string;
      error: string;
      row: string;
    }>;
    expect(quarantined.map((row) => row.store)).toEqual(["messages", "messages"]);
    expect(quarantined[0]?.error).toMatch(/call stack/i);
    expect(quarantined[0]?.row).toContain("too-deep");
    expect(quarantined[1]?.error).toContain("NOT NULL");
    expect(quarantined[1]?.row).toContain("no-sender");
    const lines = log.lines.filter((line) => String(line.msg).startsWith("quarantined a messages row"));
    expect(lines).toHaveLength(2);
    expect(
      (await store.recent({ sessionId: "onebot:10000:group:20000", limit: 10 })).map((m) => m.messageId),
    ).toEqual(["before", "after"]);
  });

  it("writes queued messages on close and refuses appends afterwards", async () => {
    const store = new SqliteMessageStore(db, captureLog().logger, tickOf(db));
    store.append(groupMessage({ messageId: "last words" }));
    await store.close();

    expect(() => store.append(groupMessage())).toThrow("messages store is closed");
    const row = db.prepare("SELECT message_id FROM messages").get() as { message_id: string };
    expect(row.message_id).toBe("last words");
  });
});
