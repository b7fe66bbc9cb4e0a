import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MemoryEntry } from "../../src/memory/types.ts";
import type { StoredMessage } from "../../src/store/types.ts";
import { type ApiClient, apiClient } from "../support/api-client.ts";
import { forgottenAt, seedMemories } from "../support/memory-seed.ts";
import { ALICE, BOB, GROUP, groupSession, OTHER_GROUP, plain } from "../support/messages.ts";
import { type Scene, startScene } from "../support/scene.ts";
import { waitFor } from "../support/wait.ts";

const TOKEN = "memory-token";
const ALICE_SUBJECT = `person:onebot:${ALICE}` as const;
const BOB_SUBJECT = `person:onebot:${BOB}` as const;
const GROUP_SUBJECT = `group:onebot:${GROUP}` as const;

describe("the memory page's API over the real server and database", () => {
  let scene: Scene;
  let api: ApiClient;

  beforeAll(async () => {
    scene = await startScene({ config: { server: { token: TOKEN } } });
    api = apiClient(scene.bot.baseUrl, TOKEN);
  });
  afterAll(() => scene.close());

  /** Alice (or `userId`) says `text` in GROUP; resolves with the message as stored. */
  async function said(text: string, userId = ALICE, nickname = "Alice"): Promise<StoredMessage> {
    const messageId = scene.qq.pushGroupMessage({ groupId: GROUP, userId, nickname, message: plain(text) });
    let stored: StoredMessage | undefined;
    await waitFor(
      async () => {
        const { body } = await api.get(
          `/api/chats/messages?sessionId=${groupSession()}&search=${encodeURIComponent(text)}`,
        );
        stored = (body.messages as StoredMessage[]).find((message) => message.messageId === messageId);
        return stored !== undefined;
      },
      5_000,
      `message "${text}" stored`,
    );
    return stored!;
  }

  it("refuses callers without the console's token", async () => {
    const anonymous = await apiClient(scene.bot.baseUrl).get("/api/memory");
    expect(anonymous.status).toBe(401);
  });

  it("lists memories newest change first, by substring of content or name, per subject, in pages", async () => {
    const [trip, coffee, meetup] = await seedMemories(scene.bot.dataDir, [
      { subject: ALICE_SUBJECT, subjectName: "张三", content: "下周二要去成都出差", at: 1_000 },
      { subject: BOB_SUBJECT, subjectName: "李四", content: "不喝咖啡，只喝茶", at: 2_000 },
      { subject: GROUP_SUBJECT, subjectName: "开黑群", content: "每周五晚上的聚会叫“开黑”", at: 3_000 },
    ]);
    const all = (await api.get("/api/memory")).body.memories as MemoryEntry[];
    const ours = all.filter((memory) => [trip!.id, coffee!.id, meetup!.id].includes(memory.id));
    expect(ours.map((memory) => memory.content)).toEqual([meetup!.content, coffee!.content, trip!.content]);

    const byContent = (await api.get(`/api/memory?search=${encodeURIComponent("成都")}`)).body.memories;
    expect(byContent.map((memory: MemoryEntry) => memory.id)).toEqual([trip!.id]);
    const byName = (await api.get(`/api/memory?search=${encodeURIComponent("李四")}`)).body.memories;
    expect(byName.map((memory: MemoryEntry) => memory.id)).toEqual([coffee!.id]);
    const aboutGroup = (await api.get(`/api/memory?subject=${GROUP_SUBJECT}`)).body.memories;
    expect(aboutGroup.map((memory: MemoryEntry) => memory.id)).toEqual([meetup!.id]);

    const first = (await api.get(`/api/memory?limit=1&search=${encodeURIComponent("，")}`)).body.memories;
    expect(first.map((memory: MemoryEntry) => memory.id)).toEqual([coffee!.id]);
    const onlyOne = await api.get(`/api/memory?limit=1&beforeId=${meetup!.id}`);
    expect(onlyOne.body.memories.map((memory: MemoryEntry) => memory.id)).toEqual([coffee!.id]);
  });

  it("rejects a malformed filter with a clear 400", async () => {
    const badSubject = await api.get("/api/memory?subject=alice");
    expect(badSubject.status).toBe(400);
    expect(badSubject.body.message).toContain("subject");
    expect((await api.get("/api/memory?limit=0")).status).toBe(400);
    expect((await api.get("/api/memory/abc")).status).toBe(400);
  });

  it("shows a memory with the stored messages it was learned from", async () => {
    const told = await said("我下周二要去成都出差，周四回来");
    const [memory] = await seedMemories(scene.bot.dataDir, [
      {
        subject: ALICE_SUBJECT,
        subjectName: "Alice",
        content: "下周二去成都出差，周四回来",
        from: [told, { ...told, messageId: "gone-1" }],
      },
    ]);
    const detail = await api.get(`/api/memory/${memory!.id}`);
    expect(detail.status).toBe(200);
    expect(detail.body.memory).toMatchObject({ id: memory!.id, content: "下周二去成都出差，周四回来" });
    const [kept, gone] = detail.body.sources;
    expect(kept).toMatchObject({ sessionId: groupSession(), messageId: told.messageId, userId: ALICE });
    expect(kept.message).toMatchObject({
      senderName: "Alice",
      segments: [{ type: "text", data: { text: "我下周二要去成都出差，周四回来" } }],
    });
    expect(gone).toMatchObject({ messageId: "gone-1", message: null });

    const missing = await api.get("/api/memory/999999");
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: "not_found", message: "no memory #999999" });
  });

  it("edits a memory's content, trimmed, and says so on the timeline", async () => {
    const [memory] = await seedMemories(scene.bot.dataDir, [
      { subject: BOB_SUBJECT, subjectName: "Bob", content: "喜欢猫" },
    ]);
    const edited = await api.request("PATCH", `/api/memory/${memory!.id}`, {
      content: "  喜欢猫，养了一只橘猫 ",
    });
    expect(edited.status).toBe(200);
    expect(edited.body.memory).toMatchObject({ id: memory!.id, content: "喜欢猫，养了一只橘猫" });
    expect((await api.get(`/api/memory/${memory!.id}`)).body.memory.content).toBe("喜欢猫，养了一只橘猫");

    const event = await scene.bot.waitForEvent("memory.learned", (candidate) =>
      JSON.stringify(candidate.data).includes("橘猫"),
    );
    expect(event.data).toEqual({
      origin: "console",
      added: [],
      updated: [{ id: memory!.id, content: "喜欢猫，养了一只橘猫", previous: "喜欢猫" }],
      deleted: [],
    });
    // Kept with the timeline's events, and listed by type for the memory page's recent changes.
    const { body } = await api.get("/api/monitor/events?type=memory.learned&type=memory.forgotten&limit=5");
    expect(body.events.length).toBeGreaterThan(0);
    expect(body.events.every((stored: { type: string }) => stored.type.startsWith("memory."))).toBe(true);
    expect(body.events[0]).toMatchObject({ type: "memory.learned", data: event.data });
  });

  it("refuses blank, overlong or unknown edits", async () => {
    const [memory] = await seedMemories(scene.bot.dataDir, [
      { subject: BOB_SUBJECT, subjectName: "Bob", content: "住在杭州" },
    ]);
    const blank = await api.request("PATCH", `/api/memory/${memory!.id}`, { content: "   " });
    expect(blank.status).toBe(400);
    const long = await api.request("PATCH", `/api/memory/${memory!.id}`, { content: "长".repeat(301) });
    expect(long.status).toBe(400);
    expect(long.body.message).toContain("300");
    expect((await api.get(`/api/memory/${memory!.id}`)).body.memory.content).toBe("住在杭州");
    expect((await api.request("PATCH", "/api/memory/999999", { content: "住在上海" })).status).toBe(404);
  });

  it("deletes one memory: gone from the page and announced as forgotten in the console", async () => {
    const [memory] = await seedMemories(scene.bot.dataDir, [
      { subject: BOB_SUBJECT, subjectName: "Bob", content: "讨厌被 @ 吵醒" },
    ]);
    const deleted = await api.request("DELETE", `/api/memory/${memory!.id}`);
    expect(deleted).toEqual({ status: 200, body: { deleted: memory!.id } });
    expect((await api.get(`/api/memory/${memory!.id}`)).status).toBe(404);
    const listed = (await api.get(`/api/memory?subject=${BOB_SUBJECT}`)).body.memories as MemoryEntry[];
    expect(listed.map((entry) => entry.id)).not.toContain(memory!.id);
    const event = await scene.bot.waitForEvent("memory.forgotten", (candidate) =>
      (candidate.data.ids as number[]).includes(memory!.id),
    );
    expect(event.data).toEqual({ subject: BOB_SUBJECT, ids: [memory!.id], by: "console" });
    expect((await api.request("DELETE", `/api/memory/${memory!.id}`)).status).toBe(404);
  });

  it("forgets a person: what is about them and what only they said, nothing else", async () => {
    const fromCarol = await said("老王下个月结婚", "30003", "Carol");
    const fromBoth = await said("老王的婚礼在成都", BOB, "Bob");
    const [aboutCarol, onlyFromCarol, alsoFromBob, aboutOthers] = await seedMemories(scene.bot.dataDir, [
      { subject: "person:onebot:30003", subjectName: "Carol", content: "是老王的同事" },
      { subject: "person:onebot:30004", subjectName: "老王", content: "下个月结婚", from: [fromCarol] },
      {
        subject: "person:onebot:30004",
        subjectName: "老王",
        content: "婚礼在成都",
        from: [fromCarol, fromBoth],
      },
      { subject: "person:onebot:30004", subjectName: "老王", content: "是程序员" },
    ]);
    const asked = Date.now();
    const answer = await api.request("DELETE", "/api/memory?subject=person:onebot:30003");
    expect(answer.status).toBe(200);
    expect([...answer.body.ids].sort()).toEqual([aboutCarol!.id, onlyFromCarol!.id].sort());
    const left = (await api.get("/api/memory?subject=person:onebot:30004")).body.memories as MemoryEntry[];
    expect(left.map((memory) => memory.id).sort()).toEqual([alsoFromBob!.id, aboutOthers!.id].sort());
    const event = await scene.bot.waitForEvent(
      "memory.forgotten",
      (candidate) => candidate.data.subject === "person:onebot:30003",
    );
    expect(event.data).toMatchObject({ by: "console" });
    // Their earlier messages are not learned from again.
    expect(await forgottenAt(scene.bot.dataDir, "person:onebot:30003")).toBeGreaterThanOrEqual(asked);
    expect(await forgottenAt(scene.bot.dataDir, "person:onebot:30004")).toBeUndefined();
  });

  it("forgets a whole group and adds a fact about one by hand", async () => {
    const other = `group:onebot:${OTHER_GROUP}` as const;
    await seedMemories(scene.bot.dataDir, [
      { subject: other, subjectName: "读书会", content: "每月读一本书" },
      { subject: other, subjectName: "读书会", content: "这个月读《活着》" },
    ]);
    const added = await api.post("/api/memory", {
      subject: other,
      subjectName: "读书会",
      content: " 周日下午见面 ",
    });
    expect(added.status).toBe(200);
    expect(added.body.memory).toMatchObject({ subject: other, content: "周日下午见面", origin: "console" });
    expect((await api.get(`/api/memory?subject=${other}`)).body.memories).toHaveLength(3);
    expect((await api.post("/api/memory", { subject: "room:1", content: "x" })).status).toBe(400);

    const forgotten = await api.request("DELETE", `/api/memory?subject=${other}`);
    expect(forgotten.body.ids).toHaveLength(3);
    expect((await api.get(`/api/memory?subject=${other}`)).body.memories).toEqual([]);
    expect((await api.request("DELETE", "/api/memory")).status).toBe(400);
  });
});
