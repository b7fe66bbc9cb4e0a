/**
 * The Groups page in a real browser: the groups with their figures, a link to the chat, and a
 * group's learned expressions edited and deleted in place.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GroupExpressionsAnswer } from "../../src/api/types.ts";
import { apiClient } from "../support/api-client.ts";
import { browserPages } from "../support/browser-pages.ts";
import { ALICE, BOB, GROUP, groupSession, plain } from "../support/messages.ts";
import { type Scene, startScene } from "../support/scene.ts";

const TOKEN = "groups-browser-token";
const LEARNED = {
  expressions: [
    { expression: "绝绝子", meaning: "夸东西特别好", example: "这奶茶绝绝子" },
    { expression: "蚌埠住了", meaning: "忍不住笑了", example: "我蚌埠住了" },
  ],
};

describe("the Groups page", () => {
  const pages = browserPages();
  let scene: Scene;

  beforeAll(async () => {
    scene = await startScene({
      config: {
        server: { token: TOKEN },
        chat: { expressions: { enabled: true, learnEvery: 3 } },
        llm: { models: { expressions: ["main/expressions-model"] } },
      },
    });
  });
  afterAll(async () => {
    await scene?.close();
  });

  const open = (path: string) => pages.open(`${scene.bot.baseUrl}${path}`, { token: TOKEN });

  it("lists the groups with their activity, opens one's expressions, edits and deletes them", async () => {
    const { qq, llm, bot } = scene;
    qq.setGroups([{ groupId: GROUP, name: "开黑群", memberCount: 42 }]);
    llm.enqueue({ text: JSON.stringify(LEARNED) });
    qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: plain("这奶茶绝绝子") });
    qq.pushGroupMessage({ groupId: GROUP, userId: BOB, message: plain("蚌埠住了") });
    qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: plain("绝绝子+1") });
    await bot.waitForEvent("expressions.learned");

    const shown = await open("/groups");
    const row = shown.locator(".groups-table tbody tr").filter({ hasText: "开黑群 (20000)" });
    await row.waitFor();
    // Group, last hour, last day, active members, the bot's share.
    expect(
      await row.locator("td").evaluateAll((cells) => cells.slice(0, 5).map((cell) => cell.textContent)),
    ).toEqual(["开黑群 (20000)", "3", "3", "2", "0%"]);
    // The day hour by hour: all three messages in the latest hour, none of them the bot's.
    const hours = await row
      .locator(".hourly-chart g")
      .evaluateAll((bars) =>
        bars.map((bar) => [bar.getAttribute("data-messages"), bar.getAttribute("data-bot")]),
      );
    expect(hours).toHaveLength(24);
    expect(hours.at(-1)).toEqual(["3", "0"]);
    expect(hours.slice(0, -1).every(([messages]) => messages === "0")).toBe(true);
    expect(await row.getByRole("link", { name: "聊天记录" }).getAttribute("href")).toBe(
      `/chats?session=${encodeURIComponent(groupSession())}`,
    );
    // Participation: the talk value in force, and quiet switched on and off from the row.
    expect(await row.locator("select").inputValue()).toBe("0");
    await row.getByRole("button", { name: "安静 30 分钟" }).click();
    await row.getByRole("button", { name: /结束安静/ }).click();
    await row.getByRole("button", { name: "安静 30 分钟" }).waitFor();

    await row.getByRole("button", { name: "开黑群 (20000)" }).click();
    const items = shown.locator(".group-expressions .expression");
    await items.filter({ hasText: "蚌埠住了" }).waitFor();
    expect(await items.count()).toBe(2);

    const slang = items.filter({ hasText: "绝绝子" });
    await slang.getByRole("button", { name: "修改" }).click();
    // In edit mode the texts are the inputs' values: the form is found by its field.
    const form = shown.locator(".group-expressions form");
    expect(await form.locator("input[name=expression]").inputValue()).toBe("绝绝子");
    await form.locator("input[name=meaning]").fill("夸东西好到极点");
    await form.getByRole("button", { name: "保存" }).click();
    await items.filter({ hasText: "夸东西好到极点" }).waitFor();

    const laugh = items.filter({ hasText: "蚌埠住了" });
    await laugh.getByRole("button", { name: "删除" }).click();
    await laugh.getByText("删除说法「蚌埠住了」？").waitFor();
    await laugh.locator(".confirm").getByRole("button", { name: "删除" }).click();
    await items.filter({ hasText: "蚌埠住了" }).waitFor({ state: "detached" });

    const stored = await apiClient(bot.baseUrl, TOKEN).get<GroupExpressionsAnswer>(
      `/api/groups/expressions?sessionId=${groupSession()}`,
    );
    expect(stored.body.expressions.map(({ expression, meaning }) => ({ expression, meaning }))).toEqual([
      { expression: "绝绝子", meaning: "夸东西好到极点" },
    ]);
    expect(llm.unscriptedRequests).toEqual([]);
  }, 60_000);
});
