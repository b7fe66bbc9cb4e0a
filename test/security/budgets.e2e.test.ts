/**
 * Daily token budgets against one heavy user: a private chat is counted
 * against its user's own budget (`limits.userDailyTokens`), a turn that crosses a budget
 * makes no further model call, and one user's spending never silences anyone else.
 */
import { afterEach, describe, expect, it } from "vitest";
import { startBot } from "../support/bot-harness.ts";
import { ALICE, BOB, GROUP, mention, SELF } from "../support/messages.ts";
import { OneBotStandIn } from "../support/onebot-standin.ts";
import { type Scene, startScene } from "../support/scene.ts";

const YOUR_BUDGET_GONE = "你今天的额度用完了，明天再聊吧。";
const BUDGET_GONE = "今天的额度用完了，明天再聊吧。";

let scene: Scene | undefined;
afterEach(async () => {
  await scene?.close();
  scene = undefined;
});

/** Scripts one answered turn whose planner and replyer calls each report `tokens` prompt tokens. */
function answer(s: Scene, text: string, tokens: number): void {
  s.llm.enqueue(
    { toolCalls: [{ name: "reply", arguments: {} }], usage: { promptTokens: tokens, completionTokens: 0 } },
    { text, usage: { promptTokens: tokens, completionTokens: 0 } },
  );
}

/** `limit.reached` events so far, as the timeline shows them. */
function limitsReached(s: Scene): Array<Record<string, unknown>> {
  return s.bot.events.filter((event) => event.type === "limit.reached").map((event) => event.data);
}

describe("the per-user daily token budget", () => {
  it("refuses a private user's third turn with one notice, and still after a restart", async () => {
    const limits = { userDailyTokens: 100 };
    scene = await startScene({ config: { limits } });
    const s = scene;
    for (const text of ["一", "二"]) {
      answer(s, text, 30);
      s.qq.pushPrivateMessage({ userId: ALICE, message: "在吗" });
      await s.qq.waitForSent((sent) => sent.text === text, 5_000);
    }
    s.qq.pushPrivateMessage({ userId: ALICE, message: "再聊聊" });
    await s.qq.waitForSent((sent) => sent.text === YOUR_BUDGET_GONE, 5_000);

    expect(s.qq.sent.map((sent) => [sent.action, sent.text])).toEqual([
      ["send_private_msg", "一"],
      ["send_private_msg", "二"],
      ["send_private_msg", YOUR_BUDGET_GONE],
    ]);
    expect(s.llm.requests).toHaveLength(4);
    expect(limitsReached(s)).toEqual([
      expect.objectContaining({
        limit: "userDailyTokens",
        subject: `onebot:${ALICE}`,
        value: 120,
        max: 100,
        notified: true,
      }),
    ]);
    // One log line names the budget.
    await s.bot.waitForLog((line) =>
      String(line.reason).startsWith("limits.userDailyTokens reached: 120/100"),
    );

    // What each user spent today is read back from the database: a restart does not reset it.
    await s.bot.stop();
    const again = await startBot({ llm: s.llm, dataDir: s.bot.dataDir, config: { limits } });
    const qq = new OneBotStandIn({ selfId: SELF });
    try {
      await qq.connectReverse(again.wsUrl);
      qq.pushPrivateMessage({ userId: ALICE, message: "我回来了" });
      await qq.waitForSent((sent) => sent.text === YOUR_BUDGET_GONE, 5_000);
      expect(s.llm.requests).toHaveLength(4);
    } finally {
      await qq.close();
      await again.stop();
    }
  });

  it("answers other users, in private and in the same group, while one user is over budget", async () => {
    scene = await startScene({ config: { limits: { userDailyTokens: 100 } } });
    const s = scene;
    answer(s, "Alice你好", 60);
    s.qq.pushPrivateMessage({ userId: ALICE, message: "在吗" });
    await s.qq.waitForSent((sent) => sent.text === "Alice你好", 5_000);

    answer(s, "Bob你好", 20);
    s.qq.pushPrivateMessage({ userId: BOB, message: "在吗" });
    await s.qq.waitForSent((sent) => sent.text === "Bob你好", 5_000);
    s.qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: mention("群里问一下") });
    await s.qq.waitForSent((sent) => sent.text === YOUR_BUDGET_GONE, 5_000);
    answer(s, "群里Bob你好", 10);
    s.qq.pushGroupMessage({ groupId: GROUP, userId: BOB, message: mention("我也问一下") });
    await s.qq.waitForSent((sent) => sent.text === "群里Bob你好", 5_000);

    expect(s.qq.sent.map((sent) => [sent.userId ?? sent.groupId, sent.text])).toEqual([
      [ALICE, "Alice你好"],
      [BOB, "Bob你好"],
      [GROUP, YOUR_BUDGET_GONE],
      [GROUP, "群里Bob你好"],
    ]);
    expect(s.llm.requests).toHaveLength(6);
  });
});

describe("a turn that crosses a budget", () => {
  it.each([
    ["userDailyTokens", YOUR_BUDGET_GONE],
    ["dailyTokens", BUDGET_GONE],
  ])("makes no further model call once it is over limits.%s", async (limit, notice) => {
    scene = await startScene({ config: { limits: { [limit]: 100 } } });
    const s = scene;
    // The planner's call alone spends more than the whole budget: the replyer is never asked.
    answer(s, "不该发出", 150);
    s.qq.pushPrivateMessage({ userId: ALICE, message: "写一篇长文" });
    await s.qq.waitForSent((sent) => sent.text === notice, 5_000);
    const finished = await s.bot.turnFinished(1, 5_000);

    expect(s.llm.requests).toHaveLength(1);
    expect(s.qq.sent.map((sent) => sent.text)).toEqual([notice]);
    expect(finished.data).toMatchObject({
      status: "silent",
      reason: expect.stringContaining(`limits.${limit} reached: 150/100`),
    });
    expect(limitsReached(s)).toEqual([
      expect.objectContaining({ limit, value: 150, max: 100, notified: true }),
    ]);

    // The next turn is refused before any model call, without a second notice.
    s.qq.pushPrivateMessage({ userId: ALICE, message: "还在吗" });
    await s.bot.turnFinished(2, 5_000);
    expect(s.llm.requests).toHaveLength(1);
    expect(s.qq.sent.map((sent) => sent.text)).toEqual([notice]);
  });
});
