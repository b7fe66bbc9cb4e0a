/**
 * The console's cost view over a real bot: what each day cost per group and model
 * (`GET /api/usage/daily`), and the budgets in force with how much of each is used and who
 * runs in economy (`GET /api/budgets`), from the same tallies the turns are checked against.
 */
import { afterEach, describe, expect, it } from "vitest";
import { apiClient } from "../support/api-client.ts";
import { ALICE, BOB, GROUP, groupSession, mention, OTHER_GROUP } from "../support/messages.ts";
import { type Scene, startScene } from "../support/scene.ts";

const TOKEN = "budgets-token";

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

describe("the console's cost view", () => {
  it("reports each day's cost per group and model, each budget's use, and which group runs in economy", async () => {
    // 1,000 CNY per million tokens: 1,000 tokens cost 1 CNY.
    const price = { input: 1_000, output: 1_000, currency: "CNY" };
    scene = await startScene({
      config: {
        server: { token: TOKEN },
        llm: {
          models: { economy: ["main/cheap-model"] },
          prices: { "main/scripted-model": price, "main/cheap-model": price },
        },
        limits: { groupDailyCost: 1, monthlyCost: 10, economyAt: 0.8 },
      },
    });
    const s = scene;
    const api = apiClient(s.bot.baseUrl, TOKEN);
    const ask = async (groupId: string, userId: string, text: string, answerText: string) => {
      s.qq.pushGroupMessage({ groupId, userId, message: mention(text) });
      await s.qq.waitForSent((sent) => sent.text === answerText, 5_000);
    };

    const before = await api.get("/api/budgets");
    expect(before.status).toBe(200);
    expect(before.body).toMatchObject({
      currency: "CNY",
      economyAt: 0.8,
      economyModels: ["main/cheap-model"],
      all: {
        economy: false,
        stopped: false,
        budgets: [{ limit: "monthlyCost", used: 0, max: 10, share: 0 }],
      },
      groups: [],
    });

    answer(s, "第一句", 450); // the group: 0.9 of its day
    await ask(GROUP, ALICE, "你好", "第一句");
    answer(s, "省着说", 25); // the group's turn now runs on the economy model: 0.95
    await ask(GROUP, BOB, "在吗", "省着说");
    answer(s, "另一个群", 100); // the other group: 0.2
    await ask(OTHER_GROUP, ALICE, "大家好", "另一个群");
    await s.bot.turnFinished(3, 5_000);

    const budgets = await api.get("/api/budgets");
    expect(budgets.body.all).toMatchObject({
      economy: false,
      stopped: false,
      budgets: [
        {
          limit: "monthlyCost",
          scope: "all",
          period: "month",
          measure: "cost",
          max: 10,
          share: expect.closeTo(0.115, 6),
        },
      ],
    });
    expect(budgets.body.all.budgets[0].used).toBeCloseTo(1.15, 6);
    expect(budgets.body.all.budgets[0].periodName).toMatch(/^\d{4}-\d{2}$/);
    // The nearest to its budget first; each with its own budget only.
    expect(budgets.body.groups).toHaveLength(2);
    const [near, far] = budgets.body.groups;
    expect(near).toMatchObject({
      sessionId: groupSession(GROUP),
      groupId: GROUP,
      economy: true,
      stopped: false,
      budgets: [{ limit: "groupDailyCost", scope: "group", period: "day", measure: "cost", max: 1 }],
    });
    expect(near.budgets[0].used).toBeCloseTo(0.95, 6);
    expect(near.budgets[0].share).toBeCloseTo(0.95, 6);
    expect(near.budgets[0].periodName).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(far).toMatchObject({ sessionId: groupSession(OTHER_GROUP), economy: false, stopped: false });
    expect(far.budgets[0].used).toBeCloseTo(0.2, 6);

    // Over its budget the group is stopped; the other group is not.
    answer(s, "最后一句", 30); // 0.98 after its planner call, 1.01 after its replyer
    await ask(GROUP, ALICE, "再聊聊", "最后一句");
    await s.bot.turnFinished(4, 5_000);
    const after = await api.get("/api/budgets");
    expect(
      after.body.groups.map((group: { groupId: string; stopped: boolean }) => [group.groupId, group.stopped]),
    ).toEqual([
      [GROUP, true],
      [OTHER_GROUP, false],
    ]);

    // Each day's calls per group and model: the economy model's calls apart.
    const daily = await api.get("/api/usage/daily?days=7");
    expect(daily.status).toBe(200);
    expect(daily.body.currency).toBe("CNY");
    const today = new Date().toISOString().slice(0, 10);
    const costOf = (sessionId: string, model: string) =>
      daily.body.rows
        .filter(
          (row: { sessionId: string; model: string; day: string }) =>
            row.sessionId === sessionId && row.model === model && row.day === today,
        )
        .reduce((sum: number, row: { cost: number }) => sum + row.cost, 0);
    expect(costOf(groupSession(GROUP), "scripted-model")).toBeCloseTo(0.9, 6);
    expect(costOf(groupSession(GROUP), "cheap-model")).toBeCloseTo(0.11, 6);
    expect(costOf(groupSession(OTHER_GROUP), "scripted-model")).toBeCloseTo(0.2, 6);
    const economyRow = daily.body.rows.find(
      (row: { sessionId: string; model: string }) =>
        row.sessionId === groupSession(GROUP) && row.model === "cheap-model",
    );
    expect(economyRow).toMatchObject({ day: today, provider: "main", calls: 4, tokens: 110 });
    expect(daily.body.since).toBe(new Date(Date.now() - 6 * 86_400_000).toISOString().slice(0, 10));

    // Token-guarded like the rest of /api/, and the period is bounded.
    expect((await apiClient(s.bot.baseUrl).get("/api/budgets")).status).toBe(401);
    expect((await apiClient(s.bot.baseUrl).get("/api/usage/daily")).status).toBe(401);
    expect((await api.get("/api/usage/daily?days=0")).status).toBe(400);
    expect((await api.get("/api/usage/daily?days=1000")).status).toBe(400);
  });
});
