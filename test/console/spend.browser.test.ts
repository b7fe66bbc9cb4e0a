/**
 * The Models and spend page in a real browser: the cost per day as a chart, split by model or
 * by chat, and the budgets table with each budget's use as a bar and the groups' economy state,
 * in both languages and on a phone.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserPages } from "../support/browser-pages.ts";
import { ALICE, BOB, GROUP, mention, OTHER_GROUP } from "../support/messages.ts";
import { type Scene, startScene } from "../support/scene.ts";

const TOKEN = "spend-browser-token";

/** Scripts one answered turn: planner and replyer report `tokens` prompt tokens each. */
function answer(s: Scene, text: string, tokens: number): void {
  s.llm.enqueue(
    { toolCalls: [{ name: "reply", arguments: {} }], usage: { promptTokens: tokens, completionTokens: 0 } },
    { text, usage: { promptTokens: tokens, completionTokens: 0 } },
  );
}

describe("the Models and spend page", () => {
  const pages = browserPages();
  let scene: Scene;

  beforeAll(async () => {
    // 1,000 CNY per million tokens: 1,000 tokens cost 1 CNY.
    const price = { input: 1_000, output: 1_000, currency: "CNY" };
    scene = await startScene({
      config: {
        server: { token: TOKEN },
        llm: {
          models: { economy: ["main/cheap-model"] },
          prices: { "main/scripted-model": price, "main/cheap-model": price },
        },
        limits: { groupDailyCost: 1, dailyCost: 5, economyAt: 0.8 },
      },
    });
    const s = scene;
    s.qq.setGroups([
      { groupId: GROUP, name: "开黑群", memberCount: 42 },
      { groupId: OTHER_GROUP, name: "读书会", memberCount: 12 },
    ]);
    const ask = async (groupId: string, userId: string, text: string, answerText: string) => {
      s.qq.pushGroupMessage({ groupId, userId, message: mention(text) });
      await s.qq.waitForSent((sent) => sent.text === answerText, 5_000);
    };
    answer(s, "第一句", 450); // 开黑群: 0.9 of its day, from now on in economy
    await ask(GROUP, ALICE, "你好", "第一句");
    answer(s, "省着说", 25); // on the economy model
    await ask(GROUP, BOB, "在吗", "省着说");
    answer(s, "另一个群", 100); // 读书会: 0.2
    await ask(OTHER_GROUP, ALICE, "大家好", "另一个群");
    await s.bot.turnFinished(3, 5_000);
  });
  afterAll(async () => {
    await scene?.close();
  });

  it("draws the cost per day by model and by chat, and shows each budget's use and the economy state", async () => {
    const page = await pages.open(`${scene.bot.baseUrl}/models`, { token: TOKEN, locale: "en-US" });
    const chart = page.locator(".cost-chart");
    await chart.locator("svg rect").first().waitFor();
    const legend = () => chart.locator(".legend span").allTextContents();
    expect((await legend()).map((text) => text.trim())).toEqual(["main/scripted-model", "main/cheap-model"]);
    // Today's bar: one part per model, its height in proportion to what the model cost (1.1 vs 0.05).
    const heights = await chart
      .locator("svg rect")
      .evaluateAll((rects) => rects.map((rect) => Number(rect.getAttribute("height"))));
    expect(heights).toHaveLength(2);
    expect(heights[0]! / heights[1]!).toBeCloseTo(1.1 / 0.05, 1);
    expect(await chart.locator("svg rect title").first().textContent()).toContain("1.10");

    await chart.locator("button[value=chat]").click();
    await expect
      .poll(async () => (await legend()).map((text) => text.trim()))
      .toEqual(["开黑群 (20000)", "读书会 (20001)"]);
    expect(await chart.locator("button[value=chat]").getAttribute("aria-pressed")).toBe("true");

    const table = page.locator(".budgets-table");
    const rows = await table
      .locator("tbody tr")
      .evaluateAll((trs) =>
        trs.map((tr) => [
          tr.getAttribute("data-whose"),
          tr.getAttribute("data-budget"),
          tr.querySelector(".number")?.textContent,
          tr.querySelector(".share-figure")?.textContent,
          tr.querySelector(".budget-state")?.textContent ?? null,
        ]),
      );
    expect(rows).toEqual([
      ["all", "dailyCost", "1.15 / 5.00 CNY", "23%", "Normal"],
      ["onebot:10000:group:20000", "groupDailyCost", "0.95 / 1.00 CNY", "95%", "Economy"],
      ["onebot:10000:group:20001", "groupDailyCost", "0.20 / 1.00 CNY", "20%", "Normal"],
    ]);
    expect(await table.locator("th[rowspan]").allTextContents()).toEqual([
      "All chats",
      "开黑群 (20000)",
      "读书会 (20001)",
    ]);
    // The bar of the group in economy is past the economy mark, in the economy colour.
    const bar = table.locator("tr[data-budget=groupDailyCost] .share-bar").first();
    expect(await bar.getAttribute("class")).toContain("economy");
    expect(await bar.locator("span").getAttribute("style")).toContain("width: 95%");
    expect(await page.locator("main").textContent()).toContain("main/cheap-model");
  });

  it("reads in Chinese and fits a phone's width", async () => {
    const page = await pages.open(`${scene.bot.baseUrl}/models`, { token: TOKEN });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.locator(".budgets-table").waitFor();
    expect(await page.locator(".cost-chart h3").textContent()).toContain("每天的花费");
    expect(await page.locator(".budgets-table .budget-state").allTextContents()).toEqual([
      "正常",
      "省钱模式",
      "正常",
    ]);
    const { scrollWidth, innerWidth } = await page.evaluate<{ scrollWidth: number; innerWidth: number }>(
      "({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth })",
    );
    expect(scrollWidth).toBeLessThanOrEqual(innerWidth);
    // The chart, each budget's bar and the state are on the phone's width, not scrolled away.
    for (const selector of [".cost-chart svg", ".budgets-table .share-bar", ".budgets-table .budget-state"]) {
      const rights = await page
        .locator(selector)
        .evaluateAll((elements) => elements.map((element) => element.getBoundingClientRect().right));
      expect(rights.length, selector).toBeGreaterThan(0);
      for (const right of rights) expect(right, selector).toBeLessThanOrEqual(390);
    }
  });
});
