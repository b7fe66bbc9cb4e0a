import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { validateConfig } from "../../src/config/validate.ts";
import { zonedClock } from "../../src/context/clock-text.ts";
import { createLogger } from "../../src/log/logger.ts";
import { MAX_MEMORY_CHARS, MemoryService } from "../../src/memory/memory-service.ts";
import { createPluginMemoryAccess, PLUGIN_RECALL_MAX } from "../../src/memory/plugin-access.ts";
import { type MemoryStore, personSubject } from "../../src/memory/types.ts";
import { sceneAround } from "../../src/memory/visibility.ts";
import type { ChatMessage } from "../../src/message/inbound.ts";
import { type MonitorEvent, MonitorHub } from "../../src/monitor/monitor.ts";
import { shippedPromptTemplates } from "../../src/prompts/templates.ts";
import { IN_MEMORY, openSqliteDatabase } from "../../src/store/sqlite/database.ts";
import { SqliteMemoryStore } from "../../src/store/sqlite/memory-store.ts";
import { ALICE, BOB, GROUP, groupChatMessage, OTHER_GROUP } from "../support/messages.ts";

/** `context.memory` of one plugin call, on the memory service and a real SQLite memory store. */

let db: ReturnType<typeof openSqliteDatabase>;
let store: MemoryStore;
let enabled: boolean;
let events: MonitorEvent[];
let service: MemoryService;
/** The stored messages of every chat, as the message store answers `recent`. */
let stored: ChatMessage[];

beforeEach(() => {
  stored = [];
  db = openSqliteDatabase(IN_MEMORY, createLogger({ level: "silent" }));
  store = new SqliteMemoryStore(db);
  enabled = true;
  events = [];
  const monitor = new MonitorHub();
  monitor.subscribe((event) => events.push(event));
  const validation = validateConfig({});
  if (!validation.ok) throw new Error(validation.problems.join("; "));
  const settings = validation.config.memory;
  service = new MemoryService({
    store,
    settings: () => ({ ...settings, enabled }),
    prompts: () => shippedPromptTemplates("zh"),
    clock: () => zonedClock("Asia/Shanghai"),
    monitor,
    logger: createLogger({ level: "silent" }),
  });
});
afterEach(() => db.close());

const chatStore = {
  recent: async ({ sessionId }: { sessionId: string }) =>
    stored.filter((message) => message.sessionId === sessionId),
  findByMessageId: async () => undefined,
};

const access = (message: ChatMessage, pluginId = "notes") =>
  createPluginMemoryAccess({
    memory: service,
    message,
    scene: () => sceneAround([message], chatStore, 20),
    pluginId,
    replyId: "r1",
  });

const inGroup = (groupId = GROUP, userId = ALICE) =>
  groupChatMessage({ groupId, userId, senderName: "Alice", time: 1_700_000_000_000 });

const privateChat = (userId = ALICE): ChatMessage => ({
  ...groupChatMessage({ userId, senderName: "Alice" }),
  sessionId: `onebot:10000:private:${userId}`,
  chatType: "private",
  groupId: undefined,
});

describe("plugin memory access (context.memory)", () => {
  it("remembers a fact about the sender, learned from the call's message, and recalls it in another group", async () => {
    const told = inGroup(GROUP);
    const remembered = await access(told).remember("  下周二要去成都出差 ");
    expect(remembered).toEqual({
      id: expect.any(Number),
      about: "person",
      user_id: ALICE,
      subject_name: "Alice",
      content: "下周二要去成都出差",
      created_at: expect.any(Number),
      updated_at: expect.any(Number),
      confirmations: 1,
    });
    expect(await store.get(remembered.id)).toMatchObject({
      subject: personSubject("onebot", ALICE),
      origin: "plugin",
      pluginId: "notes",
      sessionId: told.sessionId,
      sources: [{ sessionId: told.sessionId, messageId: told.messageId, userId: ALICE, time: told.time }],
    });
    // The timeline sees what the plugin taught the bot, in the call's turn.
    expect(events).toContainEqual(
      expect.objectContaining({
        type: "memory.learned",
        replyId: "r1",
        data: expect.objectContaining({ origin: "plugin" }),
      }),
    );
    const elsewhere = access(inGroup(OTHER_GROUP));
    expect((await elsewhere.recall("成都")).map((memory) => memory.content)).toEqual(["下周二要去成都出差"]);
    expect((await elsewhere.recall("", { about: ALICE })).map((memory) => memory.id)).toEqual([
      remembered.id,
    ]);
  });

  it("the same fact again is confirmed, not stored twice", async () => {
    const first = await access(inGroup()).remember("喜欢猫");
    const again = await access(inGroup(OTHER_GROUP)).remember("喜欢猫");
    expect(again.id).toBe(first.id);
    expect(again.confirmations).toBe(2);
    expect(await store.count()).toBe(1);
  });

  it("about names someone who spoke in the chat lately by user id, or the chat's group", async () => {
    stored.push(inGroup(GROUP, BOB));
    const message = inGroup();
    await access(message).remember("讨厌被 @ 吵醒", { about: BOB });
    await access(message).remember("每周五晚上开黑", { about: "group" });
    expect(await access(message).recall("", { about: BOB })).toMatchObject([
      { about: "person", user_id: BOB, subject_name: BOB, content: "讨厌被 @ 吵醒" },
    ]);
    expect(await access(message).recall("开黑", { about: "group" })).toMatchObject([
      { about: "group", group_id: GROUP, content: "每周五晚上开黑" },
    ]);
    expect(await access(message).recall("", { about: ALICE })).toEqual([]);
  });

  it("a group's memories are recalled only in that group", async () => {
    await access(inGroup(GROUP)).remember("每周五晚上开黑", { about: "group" });
    await access(inGroup(GROUP)).remember("周五晚上开黑总迟到");
    const elsewhere = access(inGroup(OTHER_GROUP));
    expect(await elsewhere.recall("开黑", { about: "group" })).toEqual([]);
    // A search of everything visible there finds the person's memory, not the group's.
    expect((await elsewhere.recall("开黑")).map((memory) => memory.content)).toEqual(["周五晚上开黑总迟到"]);
    expect((await access(inGroup(GROUP)).recall("开黑")).map((memory) => memory.about).sort()).toEqual([
      "group",
      "person",
    ]);
  });

  it("refuses about someone not in the chat, and never recalls a private chat's fact in a group", async () => {
    const message = inGroup();
    await expect(access(message).remember("是个骗子", { about: BOB })).rejects.toThrow(
      `memory: user ${BOB} is not in this chat`,
    );
    await expect(access(message).recall("", { about: BOB })).rejects.toThrow(
      `user ${BOB} is not in this chat`,
    );
    const told = await access(privateChat(BOB)).remember("住在春熙路 12 号");
    stored.push(inGroup(GROUP, BOB));
    expect(await access(message).recall("春熙路")).toEqual([]);
    expect(await access(message).recall("", { about: BOB })).toEqual([]);
    expect(await access(message).forget(told.id)).toBe(false);
    expect((await access(privateChat(BOB)).recall("春熙路")).map((memory) => memory.id)).toEqual([told.id]);
    expect(await store.count()).toBe(1);
  });

  it('refuses about "group" in a private chat, an about that is no user id, and an empty recall', async () => {
    const message = privateChat();
    await expect(access(message).recall("x", { about: "group" })).rejects.toThrow(
      'memory: about "group" needs a group chat; this is a private chat',
    );
    await expect(access(message).remember("x", { about: "group" })).rejects.toThrow(/needs a group chat/);
    await expect(access(message).remember("x", { about: "not a user id" })).rejects.toThrow(
      'memory: "about" must be a user id or "group", not "not a user id"',
    );
    await expect(access(message).recall("  ")).rejects.toThrow(
      "memory.recall needs a query, or about to list the newest memories about someone",
    );
  });

  it("forgets only what it could recall here: another group's memory stays", async () => {
    const groupMemory = await access(inGroup(GROUP)).remember("每周五晚上开黑", { about: "group" });
    const personMemory = await access(inGroup(GROUP)).remember("喜欢猫");
    const elsewhere = access(inGroup(OTHER_GROUP));
    expect(await elsewhere.forget(groupMemory.id)).toBe(false);
    expect(await store.get(groupMemory.id)).toBeDefined();
    expect(await elsewhere.forget(personMemory.id)).toBe(true);
    expect(await store.get(personMemory.id)).toBeUndefined();
    expect(await elsewhere.forget(personMemory.id)).toBe(false);
    expect(await access(inGroup(GROUP)).forget(groupMemory.id)).toBe(true);
    expect(events).toContainEqual(
      expect.objectContaining({
        type: "memory.forgotten",
        data: {
          subject: `person:onebot:${personMemory.user_id}`,
          ids: [personMemory.id],
          by: "plugin:notes",
        },
      }),
    );
  });

  it("memory.enabled false: recall finds nothing, remember and forget are refused, nothing changes", async () => {
    const kept = await access(inGroup()).remember("喜欢猫");
    enabled = false;
    const off = access(inGroup());
    expect(await off.recall("猫")).toEqual([]);
    await expect(off.remember("喜欢狗")).rejects.toThrow("long-term memory is off (memory.enabled: false)");
    await expect(off.forget(kept.id)).rejects.toThrow("long-term memory is off (memory.enabled: false)");
    expect(await store.count()).toBe(1);
  });

  it("refuses empty and over-long facts, and caps a recall's limit", async () => {
    const memory = access(inGroup());
    await expect(memory.remember("   ")).rejects.toThrow("memory.remember needs the fact to remember");
    await expect(memory.remember("长".repeat(MAX_MEMORY_CHARS + 1))).rejects.toThrow(
      `memory.remember: a memory is at most ${MAX_MEMORY_CHARS} characters (this one has ${MAX_MEMORY_CHARS + 1})`,
    );
    await expect(memory.remember("长".repeat(MAX_MEMORY_CHARS))).resolves.toMatchObject({
      content: "长".repeat(MAX_MEMORY_CHARS),
    });
    // Distinct facts straight into the store (remember would merge look-alikes).
    for (let i = 0; i < PLUGIN_RECALL_MAX + 5; i++) {
      await store.add({
        subject: personSubject("onebot", ALICE),
        subjectName: "Alice",
        content: `fact ${i}`,
        origin: "learned",
        sessionId: inGroup().sessionId,
        sources: [],
        at: 1_700_000_000_000 + i,
      });
    }
    expect(await store.count()).toBeGreaterThan(PLUGIN_RECALL_MAX);
    expect(await memory.recall("", { about: ALICE, limit: 1000 })).toHaveLength(PLUGIN_RECALL_MAX);
    expect(await memory.recall("", { about: ALICE })).toHaveLength(5);
    expect(await memory.recall("", { about: ALICE, limit: 2 })).toHaveLength(2);
  });
});
