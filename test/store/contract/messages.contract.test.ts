import { expect, it } from "vitest";
import type { Segment } from "../../../src/message/segment.ts";
import { captureLog, groupMessage } from "../../support/store.ts";
import { forEachBackend } from "./backends.ts";

const SESSION = "onebot:10000:group:20000";
const OTHER_SESSION = "onebot:10000:group:99999";

const EVERY_SEGMENT: Segment[] = [
  { type: "text", data: { text: '你好 "quoted" \n 🌸 back\\slash' } },
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

const ids = (messages: Array<{ messageId: string }>) => messages.map((message) => message.messageId);

forEachBackend((backend) => {
  it("round-trips every segment type exactly, readable before the batch is written", async () => {
    const { messages } = await backend.open();
    const message = groupMessage({ messageId: "1234567890123456789", segments: EVERY_SEGMENT });
    messages.append(message);

    const found = await messages.findByMessageId(SESSION, "1234567890123456789");
    expect(found).toEqual({ ...message, rowId: expect.any(Number) });
    expect(found?.segments).toStrictEqual(EVERY_SEGMENT);
    expect(await messages.recent({ sessionId: SESSION, limit: 10 })).toEqual([found]);
  });

  it("keeps 19-digit ids and ids beyond 2^53 identical", async () => {
    const { messages } = await backend.open();
    const id = "9007199254740993123";
    messages.append(
      groupMessage({ messageId: id, userId: "18446744073709551615", groupId: "-9007199254740993" }),
    );
    await messages.flush();

    const found = await messages.findByMessageId(SESSION, id);
    expect(found?.messageId).toBe(id);
    expect(found?.userId).toBe("18446744073709551615");
    expect(found?.groupId).toBe("-9007199254740993");
    expect(await messages.findByMessageId(SESSION, "9007199254740993124")).toBeUndefined();
  });

  it("round-trips private messages (no group id) and the bot's own messages", async () => {
    const { messages } = await backend.open();
    const { groupId: _group, ...groupFields } = groupMessage();
    const message = {
      ...groupFields,
      sessionId: "onebot:10000:private:30000",
      chatType: "private" as const,
      fromSelf: true,
      userId: "10000",
    };
    messages.append(message);
    await messages.flush();

    const [stored] = await messages.recent({ sessionId: message.sessionId, limit: 1 });
    expect(stored).toStrictEqual({ ...message, rowId: expect.any(Number) });
  });

  it("returns the newest `limit` messages of one session, oldest first, without other sessions", async () => {
    const { messages } = await backend.open();
    for (let index = 0; index < 30; index++) {
      messages.append(groupMessage({ messageId: `a${index}` }));
      messages.append(groupMessage({ sessionId: OTHER_SESSION, groupId: "99999", messageId: `b${index}` }));
    }

    expect(ids(await messages.recent({ sessionId: SESSION, limit: 5 }))).toEqual([
      "a25",
      "a26",
      "a27",
      "a28",
      "a29",
    ]);
    await messages.flush();
    expect(ids(await messages.recent({ sessionId: SESSION, limit: 3 }))).toEqual(["a27", "a28", "a29"]);
    expect(await messages.recent({ sessionId: SESSION, limit: 100 })).toHaveLength(30);
    expect(await messages.recent({ sessionId: SESSION, limit: 0 })).toEqual([]);
    expect(await messages.recent({ sessionId: "onebot:10000:group:404", limit: 5 })).toEqual([]);
  });

  it("finds the newest message of a session under a platform id, not another session's", async () => {
    const { messages } = await backend.open();
    messages.append(groupMessage({ messageId: "7", senderName: "first" }));
    messages.append(groupMessage({ sessionId: OTHER_SESSION, groupId: "99999", messageId: "8" }));
    messages.append(groupMessage({ messageId: "7", senderName: "second" }));
    await messages.flush();

    expect((await messages.findByMessageId(SESSION, "7"))?.senderName).toBe("second");
    expect(await messages.findByMessageId(SESSION, "8")).toBeUndefined();
  });

  it("keeps a thousand appends made at once, all in order", async () => {
    const { messages } = await backend.open();
    for (let index = 0; index < 1000; index++) messages.append(groupMessage({ messageId: String(index) }));
    await messages.flush();

    const all = await messages.recent({ sessionId: SESSION, limit: 1000 });
    expect(ids(all)).toEqual(Array.from({ length: 1000 }, (_, index) => String(index)));
  });

  it("stores the neighbours of a row that cannot be written and quarantines only that row", async () => {
    const log = captureLog();
    const stores = await backend.open(undefined, { logger: log.logger });
    // A segment nested deeper than JSON.stringify can go, and a row the schema refuses.
    let deep: { text: string } = { text: "bottom" };
    for (let depth = 0; depth < 100_000; depth++) deep = { text: "", inner: deep } as { text: string };
    stores.messages.append(groupMessage({ messageId: "before" }));
    stores.messages.append(groupMessage({ messageId: "too-deep", segments: [{ type: "text", data: deep }] }));
    stores.messages.append(groupMessage({ messageId: "no-sender", senderName: null as unknown as string }));
    stores.messages.append(groupMessage({ messageId: "after" }));
    await stores.messages.flush();

    expect(ids(await stores.messages.recent({ sessionId: SESSION, limit: 10 }))).toEqual(["before", "after"]);
    const url = backend.urlOf(stores);
    const quarantined = await backend.committedRows(
      url,
      "SELECT store, error, row FROM quarantine ORDER BY id",
    );
    expect(quarantined.map((row) => row.store)).toEqual(["messages", "messages"]);
    expect(quarantined[0]?.error).toMatch(/call stack/i);
    expect(quarantined[0]?.row).toContain("too-deep");
    expect(quarantined[1]?.error).toMatch(/not.null/i);
    expect(quarantined[1]?.row).toContain("no-sender");
    const lines = log.lines.filter((line) => String(line.msg).startsWith("quarantined a messages row"));
    expect(lines).toHaveLength(2);
  });

  it("writes queued messages on close, refuses appends afterwards, and keeps them for the next start", async () => {
    const stores = await backend.open();
    stores.messages.append(groupMessage({ messageId: "last words" }));
    await stores.close(); // before the scheduled write: closing must write the queue itself
    await stores.close();

    expect(() => stores.messages.append(groupMessage())).toThrow("messages store is closed");
    const again = await backend.open(backend.urlOf(stores));
    expect(ids(await again.messages.recent({ sessionId: SESSION, limit: 10 }))).toEqual(["last words"]);
  });

  it("lists chats by latest activity with their counts and newest message, searchable by id", async () => {
    const { messages, history } = await backend.open();
    messages.append(groupMessage({ messageId: "a0" }));
    messages.append(groupMessage({ sessionId: OTHER_SESSION, groupId: "99999", messageId: "b0" }));
    messages.append(groupMessage({ messageId: "a1", time: 1_700_000_000_500 }));
    const { groupId: _group, ...groupFields } = groupMessage();
    messages.append({
      ...groupFields,
      sessionId: "onebot:10000:private:30000",
      chatType: "private",
      messageId: "p0",
    });

    const sessions = await history.sessions({ limit: 10 });
    expect(
      sessions.map((s) => [s.sessionId, s.platform, s.chatType, s.messageCount, s.last.messageId]),
    ).toEqual([
      ["onebot:10000:private:30000", "onebot", "private", 1, "p0"],
      [SESSION, "onebot", "group", 2, "a1"],
      [OTHER_SESSION, "onebot", "group", 1, "b0"],
    ]);
    expect(sessions[1]?.last).toEqual({
      ...groupMessage({ messageId: "a1", time: 1_700_000_000_500 }),
      rowId: expect.any(Number),
    });
    expect((await history.sessions({ limit: 2 })).map((s) => s.sessionId)).toHaveLength(2);
    expect((await history.sessions({ search: "99999", limit: 10 })).map((s) => s.sessionId)).toEqual([
      OTHER_SESSION,
    ]);
    expect(await history.sessions({ search: "9_9", limit: 10 })).toEqual([]);
  });

  it("pages messages newest first, per chat or across chats, and finds text in them", async () => {
    const { messages, history } = await backend.open();
    const text = (messageId: string, value: string, sessionId = SESSION) =>
      groupMessage({ sessionId, messageId, segments: [{ type: "text", data: { text: value } }] });
    messages.append(text("1", "good morning"));
    messages.append(text("2", "100% sure", OTHER_SESSION));
    messages.append(text("3", 'she said "hi"'));
    messages.append(text("4", "1000 times"));
    messages.append(text("5", "good night"));

    const all = await history.messages({ limit: 10 });
    expect(ids(all)).toEqual(["5", "4", "3", "2", "1"]);
    expect(ids(await history.messages({ sessionId: SESSION, limit: 10 }))).toEqual(["5", "4", "3", "1"]);
    const firstPage = await history.messages({ sessionId: SESSION, limit: 2 });
    expect(ids(firstPage)).toEqual(["5", "4"]);
    const nextPage = await history.messages({
      sessionId: SESSION,
      beforeRowId: firstPage[1]?.rowId,
      limit: 2,
    });
    expect(ids(nextPage)).toEqual(["3", "1"]);
    expect(ids(await history.messages({ beforeRowId: all[2]?.rowId, limit: 10 }))).toEqual(["2", "1"]);

    expect(ids(await history.messages({ search: "good", limit: 10 }))).toEqual(["5", "1"]);
    expect(ids(await history.messages({ sessionId: SESSION, search: "good", limit: 1 }))).toEqual(["5"]);
    // Quotes are escaped inside the stored JSON; LIKE wildcards in the search are plain text.
    expect(ids(await history.messages({ search: '"hi"', limit: 10 }))).toEqual(["3"]);
    expect(ids(await history.messages({ search: "100%", limit: 10 }))).toEqual(["2"]);
    expect(ids(await history.messages({ search: "1_00", limit: 10 }))).toEqual([]);
  });
});
