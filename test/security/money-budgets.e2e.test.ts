/**
 * Money budgets over the wire: with `llm.prices` and a small group budget, a group's turns run
 * on `llm.models.economy` from `limits.economyAt` of it (the admins told once, in private) and
 * stop at the budget with one notice; what each call cost is recorded and reported.
 */
import { afterEach, describe, expect, it } from "vitest";
import { apiClient } from "../support/api-client.ts";
import { ALICE, BOB, GROUP, mention } from "../support/messages.ts";
import { type Scene, startScene } from "../support/scene.ts";

const BUDGET_GONE = "今天的额度用完了，明天再聊吧。";
const ADMIN = "30009";

let scene: Scene | undefined;
afterEach(async () => {
  await scene?.close();
  scene = undefined;
});

/** Scripts one answered turn: planner and replyer report `tokens` prompt tokens each. */
function answer(s: Scene, text: string, tokens: number): void {
  s.llm.enqueue(
    { toolCalls: [{ name: "reply", arguments: {} }], usage: { promptTokens: tokens, completionTokens: 0 } },
    { text, usage: { promptTokens: tokens, completionTokens: 0 } },
  );
}

describe("a group's money budget", () => {
  it("steps down to the economy models at 80 %, tells the admins once, and stops at 100 % with one notice", async () => {
    // 1,000 CNY per million tokens: 1,000 tokens cost 1 CNY, the group's whole day.
    const price = { input: 1_000, output: 1_000, currency: "CNY" };
    scene = await startScene({
      config: {
        bot: { admins: [ADMIN] },
        llm: {
          models: { economy: ["main/cheap-model"] },
          prices: { "main/scripted-model": price, "main/cheap-model": price },
        },
        limits: { groupDailyCost: 1, economyAt: 0.8 },
      },
    });
    const s = scene;
    const ask = async (userId: string, text: string, answerText: string) => {
      s.qq.pushGroupMessage({ groupId: GROUP, userId, message: mention(text) });
      await s.qq.waitForSent((sent) => sent.text === answerText, 5_000);
    };
    answer(s, "第一句", 250); // 0.5 spent
    await ask(ALICE, "你好", "第一句");
    answer(s, "第二句", 200); // 0.9 spent
    await ask(BOB, "在吗", "第二句");
    expect(s.llm.requests.map((request) => request.body.model)).toEqual(Array(4).fill("scripted-model"));

    // At 0.9 of the budget: this turn runs on the economy model.
    answer(s, "省着说", 100); // 1.1 spent
    await ask(ALICE, "再聊聊", "省着说");
    expect(s.llm.requests.slice(4).map((request) => request.body.model)).toEqual([
      "cheap-model",
      "cheap-model",
    ]);
    const toAdmin = await s.qq.waitForSent((sent) => sent.action === "send_private_msg", 5_000);
    expect(toAdmin.userId).toBe(ADMIN);
    expect(toAdmin.text).toContain("limits.groupDailyCost");

    // Over the budget: one notice, then silence, and no model call.
    s.qq.pushGroupMessage({ groupId: GROUP, userId: BOB, message: mention("还在吗") });
    await s.qq.waitForSent((sent) => sent.text === BUDGET_GONE, 5_000);
    s.qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: mention("喂") });
    await s.bot.turnFinished(5, 5_000);
    expect(s.llm.requests).toHaveLength(6);
    // The admins hear of it as the turn is admitted, before its reply.
    expect(s.qq.sent.map((sent) => sent.text)).toEqual([
      "第一句",
      "第二句",
      toAdmin.text,
      "省着说",
      BUDGET_GONE,
    ]);
    const refusals = s.bot.events
      .filter((event) => event.type === "limit.reached")
      .map((event) => event.data);
    expect(refusals[0]).toMatchObject({
      limit: "groupDailyCost",
      value: expect.closeTo(1.1, 6),
      max: 1,
      notified: true,
    });

    // The bill: each call's cost was recorded with it.
    const usage = await apiClient(s.bot.baseUrl).get<{
      currency: string;
      rows: Array<{ cost: number | null }>;
    }>("/api/usage?days=1");
    const cost = usage.body.rows.reduce((sum, row) => sum + (row.cost ?? 0), 0);
    expect(usage.body.currency).toBe("CNY");
    expect(cost).toBeCloseTo(1.1, 6);
  });
});
