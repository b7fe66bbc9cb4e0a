/**
 * The memory page in a real browser: search, the messages a memory came from, edit in place,
 * delete and forget a person, each after a confirmation; and memories on the turn timeline.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MemoryEntry } from "../../src/memory/types.ts";
import type { StoredMessage } from "../../src/store/types.ts";
import { type ApiClient, apiClient } from "../support/api-client.ts";
import { browserPages } from "../support/browser-pages.ts";
import { seedMemories } from "../support/memory-seed.ts";
import { ALICE, BOB, GROUP, groupSession, mention, plain } from "../support/messages.ts";
import { type Scene, startScene } from "../support/scene.ts";
import { waitFor } from "../support/wait.ts";

const TOKEN = "memory-browser-token";

describe("the memory page", () => {
  const pages = browserPages();
  let scene: Scene;
  let api: ApiClient;

  beforeAll(async () => {
    scene = await startScene({ config: { server: { token: TOKEN } } });
    api = apiClient(scene.bot.baseUrl, TOKEN);
  });
  afterAll(async () => {
    await scene?.close();
  });

  const open = (path: string): Promise<Page> => pages.open(`${scene.bot.baseUrl}${path}`, { token: TOKEN });

  /** `userId` says `text` in GROUP; resolves with the message as stored. */
  async function said(text: string, userId: string, nickname: string): Promise<StoredMessage> {
    const messageId = scene.qq.pushGroupMessage({ groupId: GROUP, userId, nickname, message: plain(text) });
    let stored: StoredMessage | undefined;
    await waitFor(async () => {
      const { body } = await api.get(`/api/chats/messages?sessionId=${groupSession()}`);
      stored = (body.messages as StoredMessage[]).find((message) => message.messageId === messageId);
      return stored !== undefined;
    });
    return stored!;
  }

  async function memoryText(id: number): Promise<string | undefined> {
    const answer = await api.get(`/api/memory/${id}`);
    return answer.status === 200 ? (answer.body.memory as MemoryEntry).content : undefined;
  }

  it("searches, shows a memory's source message, edits, deletes and forgets a person", async () => {
    const trip = await said("我下周二要去成都出差", ALICE, "张三");
    const tea = await said("我不喝咖啡，只喝茶", BOB, "李四");
    const [tripMemory, teaMemory, wakeMemory] = await seedMemories(scene.bot.dataDir, [
      { subject: `person:onebot:${ALICE}`, subjectName: "张三", content: "下周二要去成都出差", from: [trip] },
      { subject: `person:onebot:${BOB}`, subjectName: "李四", content: "不喝咖啡，只喝茶", from: [tea] },
      { subject: `person:onebot:${BOB}`, subjectName: "李四", content: "讨厌被 @ 吵醒" },
    ]);

    const shown = await open("/memory");
    await shown.getByRole("link", { name: "记忆" }).waitFor();
    const rows = shown.locator(".memory-list li");
    await rows.filter({ hasText: "讨厌被 @ 吵醒" }).waitFor();
    expect(await rows.count()).toBe(3);

    // Search: only what mentions 成都, with who it is about.
    await shown.locator("input[name=search]").fill("成都");
    await shown.locator("input[name=search]").press("Enter");
    await waitFor(async () => (await rows.count()) === 1, 5_000, "search narrowed the list");
    expect(await rows.first().textContent()).toContain(`张三 (QQ ${ALICE})`);

    // The source: the message it was learned from, as stored, linking to its chat.
    await rows.first().click();
    const detail = shown.locator(".memory-detail");
    await detail.locator(".memory-sources li", { hasText: "我下周二要去成都出差" }).waitFor();
    expect(await detail.locator(".memory-sources").textContent()).toContain("张三");

    // Edit in place.
    await detail.getByRole("button", { name: "修改" }).click();
    await detail.locator("textarea[name=content]").fill("下周二去成都出差，周四回来");
    await detail.getByRole("button", { name: "保存" }).click();
    await detail.locator(".memory-text", { hasText: "下周二去成都出差，周四回来" }).waitFor();
    await rows.filter({ hasText: "周四回来" }).waitFor();
    expect(await memoryText(tripMemory!.id)).toBe("下周二去成都出差，周四回来");

    // Delete, after saying no once.
    await detail.getByRole("button", { name: "删除" }).click();
    await detail.getByText("确定删除这条记忆？").waitFor();
    await detail.getByRole("button", { name: "取消" }).click();
    expect(await memoryText(tripMemory!.id)).toBe("下周二去成都出差，周四回来");
    await detail.getByRole("button", { name: "删除" }).click();
    await detail.getByRole("button", { name: "确定删除" }).click();
    await shown.getByText("已删除。").waitFor();
    await waitFor(async () => (await rows.count()) === 0, 5_000, "deleted memory left the list");
    expect(await memoryText(tripMemory!.id)).toBeUndefined();
    // With nothing selected, the recent changes say what this page just did.
    const changes = shown.locator(".memory-changes");
    await changes.locator("[data-event-type='memory.learned']", { hasText: "周四回来" }).waitFor();
    expect(await changes.locator("[data-event-type='memory.learned']").first().textContent()).toContain(
      "原为 “下周二要去成都出差”",
    );
    expect(await changes.locator("[data-event-type='memory.forgotten']").first().textContent()).toContain(
      "在控制台中",
    );

    // Forget a person, from one of their memories.
    await shown.locator("input[name=search]").fill("");
    await shown.locator("input[name=search]").press("Enter");
    await rows.filter({ hasText: "不喝咖啡" }).click();
    await detail.getByRole("button", { name: "忘记这个人的一切" }).click();
    await detail.getByText(`确定忘记关于 李四 (QQ ${BOB}) 的全部记忆？`, { exact: false }).waitFor();
    await detail.getByRole("button", { name: "确定忘记" }).click();
    await shown.getByText("已忘记 2 条记忆。").waitFor();
    expect(await memoryText(teaMemory!.id)).toBeUndefined();
    expect(await memoryText(wakeMemory!.id)).toBeUndefined();
  });

  it("filters to one person, adds a fact about them, and opens a source's chat", async () => {
    const told = await said("我养了一只橘猫", "30005", "王五");
    await seedMemories(scene.bot.dataDir, [
      { subject: "person:onebot:30005", subjectName: "王五", content: "养了一只橘猫", from: [told] },
      { subject: "person:onebot:30006", subjectName: "赵六", content: "喜欢爬山" },
    ]);
    const shown = await open("/memory");
    const rows = shown.locator(".memory-list li");
    await rows.filter({ hasText: "喜欢爬山" }).waitFor();

    await shown.locator("input[name=subject-id]").fill("30005");
    await shown.getByRole("button", { name: "筛选" }).click();
    await waitFor(async () => (await rows.count()) === 1, 5_000, "filtered to one person");
    await shown.locator("input[name=new-memory]").fill("猫叫大橘");
    await shown.getByRole("button", { name: "记住" }).click();
    await rows.filter({ hasText: "猫叫大橘" }).waitFor();
    expect(await rows.filter({ hasText: "猫叫大橘" }).textContent()).toContain("控制台");
    // The recent changes list the addition; its link opens the memory on this same page.
    const added = shown.locator(".memory-changes [data-event-type='memory.learned']", {
      hasText: "猫叫大橘",
    });
    await added.getByRole("link").click();
    await shown.locator(".memory-detail .memory-text", { hasText: "猫叫大橘" }).waitFor();
    expect(await shown.locator(".memory-detail").textContent()).toContain("没有来源消息");

    await rows.filter({ hasText: "养了一只橘猫" }).click();
    await shown.getByRole("link", { name: "打开会话" }).click();
    await shown.locator(".history li", { hasText: "我养了一只橘猫" }).waitFor();
    expect(new URL(shown.url()).pathname).toBe("/chats");
  });

  it("shows on the turn's timeline what was recalled for it and what it learned", async () => {
    await seedMemories(scene.bot.dataDir, [
      { subject: `person:onebot:${ALICE}`, subjectName: "张三", content: "下周二要去苏州出差" },
    ]);
    const before = scene.bot.events.filter((event) => event.type === "turn.finished").length;
    scene.llm.enqueue(
      { toolCalls: [{ name: "remember", arguments: { content: "住在杭州" } }] },
      { toolCalls: [{ name: "reply", arguments: {} }] },
      { text: "去苏州呀" },
    );
    scene.qq.pushGroupMessage({
      groupId: GROUP,
      userId: ALICE,
      nickname: "张三",
      message: mention("我住杭州，下周去苏州哪里？"),
    });
    const finished = await scene.bot.turnFinished(before + 1);

    const shown = await open(`/monitor/${finished.replyId}`);
    const recalled = shown.locator("[data-event-type='memory.recalled']");
    await recalled.waitFor();
    expect(await recalled.textContent()).toContain("想起记忆");
    expect(await recalled.textContent()).toContain("张三: 下周二要去苏州出差");
    const learned = shown.locator("[data-event-type='memory.learned']");
    await learned.waitFor();
    expect(await learned.textContent()).toContain("对话中主动记住");
    expect(await learned.textContent()).toContain("新记住");
    expect(await learned.textContent()).toContain("住在杭州");

    // The learned memory links to the memory page, which shows the message it came from.
    await learned.getByRole("link").first().click();
    const detail = shown.locator(".memory-detail");
    await detail.locator(".memory-text", { hasText: "住在杭州" }).waitFor();
    expect(await detail.textContent()).toContain("对话中主动记住");
    await detail.locator(".memory-sources li", { hasText: "我住杭州，下周去苏州哪里？" }).waitFor();
  });
});
