/**
 * Access rules and spend limits, as a group owner sees them: a chat or user the rules exclude
 * is never answered (its messages are still kept), a user or group that asks too often and a
 * group (or the whole bot) over its daily token budget get one notice and then silence, and
 * the console's timeline says why.
 */
import { afterEach, describe, expect, it } from "vitest";
import { apiClient } from "../support/api-client.ts";
import { type BotHarness, startBot } from "../support/bot-harness.ts";
import { ALICE, BOB, SELF } from "../support/messages.ts";
import { OneBotStandIn, type WireSegment } from "../support/onebot-standin.ts";
import { type Scene, startScene } from "../support/scene.ts";
import { waitFor } from "../support/wait.ts";

const GROUP_A = "20001";
const GROUP_B = "20002";
const SESSION_A = `onebot:${SELF}:group:${GROUP_A}`;
const TOO_FAST = "说得太快了，稍后再试。";
const BUDGET_GONE = "今天的额度用完了，明天再聊吧。";

const mention = (text: string): WireSegment[] => [
  { type: "at", data: { qq: SELF } },
  { type: "text", data: { text: ` ${text}` } },
];

interface TurnSummary {
  replyId: string;
  sessionId: string;
  status?: string;
  reason?: string;
}

interface TimelineEvent {
  type: string;
  data: Record<string, unknown>;
}

let scene: Scene | undefined;
afterEach(async () => {
  await scene?.close();
  scene = undefined;
});

async function start(
  config: Record<string, unknown>,
  options: { configFile?: boolean } = {},
): Promise<Scene> {
  scene = await startScene({ config, ...options });
  return scene;
}

/** Scripts one answered turn: the planner calls `reply`, the replyer writes `text`. */
function answer(s: Scene, text: string, tokens?: { planner: number; replyer: number }): void {
  s.llm.enqueue(
    {
      toolCalls: [{ name: "reply", arguments: {} }],
      ...(tokens ? { usage: { promptTokens: tokens.planner, completionTokens: 0 } } : {}),
    },
    { text, ...(tokens ? { usage: { promptTokens: tokens.replyer, completionTokens: 0 } } : {}) },
  );
}

function say(s: Scene, groupId: string, userId: string, message: WireSegment[] | string): void {
  s.qq.pushGroupMessage({ groupId, userId, nickname: userId === ALICE ? "Alice" : "Bob", message });
}

/** Reads the console API as the console does. */
async function getJson<T>(bot: BotHarness, path: string): Promise<T> {
  const answer = await apiClient(bot.baseUrl).get<T>(path);
  expect(answer.status).toBe(200);
  return answer.body;
}

/** The timeline's refused turns, newest first, with the event that says why. */
async function refusals(bot: BotHarness): Promise<Array<TurnSummary & { why: TimelineEvent }>> {
  const { turns } = await getJson<{ turns: TurnSummary[] }>(bot, "/api/monitor/turns?limit=50");
  const refused = turns.filter((turn) => /^(access|limits)\./.test(turn.reason ?? ""));
  return Promise.all(
    refused.map(async (turn) => {
      const detail = await getJson<{ events: TimelineEvent[] }>(bot, `/api/monitor/turns/${turn.replyId}`);
      const why = detail.events.find((e) => e.type === "access.denied" || e.type === "limit.reached");
      return { ...turn, why: { type: why!.type, data: why!.data } };
    }),
  );
}

async function storedTexts(bot: BotHarness, sessionId: string): Promise<string[]> {
  const path = `/api/chats/messages?sessionId=${encodeURIComponent(sessionId)}&limit=50`;
  const { messages } = await getJson<{
    messages: Array<{ segments: Array<{ type: string; data: { text?: string } }> }>;
  }>(bot, path);
  return messages.map((m) => m.segments.map((segment) => segment.data.text ?? "").join(""));
}

/** Refused turns that are over (their notice, if any, sent): `turn.finished` after a refusal event. */
const refusedCount = (bot: BotHarness) => {
  const refused = new Set(
    bot.events.filter((e) => e.type === "access.denied" || e.type === "limit.reached").map((e) => e.replyId),
  );
  return bot.events.filter((e) => e.type === "turn.finished" && refused.has(e.replyId)).length;
};

async function waitForRefusals(bot: BotHarness, count: number): Promise<void> {
  await waitFor(() => refusedCount(bot) >= count);
}

describe("access rules", () => {
  it("never answers a denied group, not even its commands, but keeps its messages", async () => {
    const s = await start({ bot: { admins: [ALICE] }, access: { deny: [`group:${GROUP_A}`] } });
    say(s, GROUP_A, ALICE, mention("在吗"));
    say(s, GROUP_A, ALICE, "/plugins list");
    say(s, GROUP_A, ALICE, "/总结");
    answer(s, "B群你好");
    say(s, GROUP_B, BOB, mention("在吗"));
    await s.qq.waitForSent((sent) => sent.groupId === GROUP_B, 5_000);
    say(s, GROUP_B, ALICE, "/plugins list");
    await s.qq.waitForSent((sent) => sent.groupId === GROUP_B && sent.text !== "B群你好", 5_000);

    expect(s.qq.sent.filter((sent) => sent.groupId === GROUP_A)).toEqual([]);
    expect(s.llm.requests).toHaveLength(2);
    const stored = (await storedTexts(s.bot, SESSION_A)).join("\n");
    for (const text of ["在吗", "/plugins list", "/总结"]) expect(stored).toContain(text);
    const [refusal] = await refusals(s.bot);
    expect(refusal).toMatchObject({ sessionId: SESSION_A, status: "silent" });
    expect(refusal!.reason).toContain(`access.deny: group:${GROUP_A}`);
    expect(refusal!.why).toEqual({
      type: "access.denied",
      data: expect.objectContaining({
        rule: `access.deny: group:${GROUP_A}`,
        userId: ALICE,
        groupId: GROUP_A,
      }),
    });
  });

  it("never answers a denied user, in groups or in private, while others in the group are answered", async () => {
    const s = await start({ access: { deny: [`user:${ALICE}`] } });
    say(s, GROUP_A, ALICE, mention("帮我查一下"));
    s.qq.pushPrivateMessage({ userId: ALICE, message: "在吗" });
    answer(s, "Bob你好");
    say(s, GROUP_A, BOB, mention("帮我查一下"));
    await s.qq.waitForSent(undefined, 5_000);
    await waitForRefusals(s.bot, 2);

    expect(s.qq.sent.map((sent) => sent.text)).toEqual(["Bob你好"]);
    expect(s.llm.requests).toHaveLength(2);
    const rules = (await refusals(s.bot)).map((r) => r.why.data.rule);
    expect(rules).toEqual([`access.deny: user:${ALICE}`, `access.deny: user:${ALICE}`]);
  });

  it("answers no private chat when privateChats is off, and groups still", async () => {
    const s = await start({ access: { privateChats: false } });
    s.qq.pushPrivateMessage({ userId: ALICE, message: "在吗" });
    answer(s, "群里见");
    say(s, GROUP_A, ALICE, mention("在吗"));
    await s.qq.waitForSent(undefined, 5_000);
    await waitForRefusals(s.bot, 1);

    expect(s.qq.sent.map((sent) => [sent.action, sent.text])).toEqual([["send_group_msg", "群里见"]]);
    expect(s.llm.requests).toHaveLength(2);
    expect((await refusals(s.bot))[0]!.why.data.rule).toBe("access.privateChats");
  });

  it("answers only what an allow list names", async () => {
    const s = await start({ access: { allow: [`group:${GROUP_B}`] } });
    say(s, GROUP_A, ALICE, mention("在吗"));
    answer(s, "B群你好");
    say(s, GROUP_B, ALICE, mention("在吗"));
    await s.qq.waitForSent(undefined, 5_000);
    await waitForRefusals(s.bot, 1);

    expect(s.qq.sent.map((sent) => [sent.groupId, sent.text])).toEqual([[GROUP_B, "B群你好"]]);
    expect(s.llm.requests).toHaveLength(2);
    expect((await refusals(s.bot))[0]!.why.data.rule).toBe("access.allow");
  });

  it("applies rules edited in the console without a restart", async () => {
    const s = await start({}, { configFile: true });
    const api = apiClient(s.bot.baseUrl);
    const { yaml } = (await api.get<{ yaml: string }>("/api/config")).body;
    const saved = await api.put("/api/config", { yaml: `${yaml}access:\n  deny: ["group:${GROUP_A}"]\n` });
    expect(saved.body).toMatchObject({ saved: true, changedKeys: ["access.deny"], restartRequired: [] });

    say(s, GROUP_A, ALICE, mention("在吗"));
    answer(s, "B群你好");
    say(s, GROUP_B, ALICE, mention("在吗"));
    await s.qq.waitForSent(undefined, 5_000);
    await waitForRefusals(s.bot, 1);
    expect(s.qq.sent.map((sent) => sent.groupId)).toEqual([GROUP_B]);
    expect(s.llm.requests).toHaveLength(2);
  });
});

describe("turns per minute", () => {
  it("refuses a user's third turn in a minute with one notice, then stays silent; others are answered", async () => {
    const s = await start({ limits: { userTurnsPerMinute: 2 } });
    for (const text of ["一", "二"]) {
      answer(s, text);
      say(s, GROUP_A, ALICE, mention("问个事"));
      await s.qq.waitForSent((sent) => sent.text === text, 5_000);
    }
    say(s, GROUP_A, ALICE, mention("再问一个"));
    await s.qq.waitForSent((sent) => sent.text === TOO_FAST, 5_000);
    say(s, GROUP_A, ALICE, mention("还有一个"));
    answer(s, "Bob你好");
    say(s, GROUP_A, BOB, mention("问个事"));
    await s.qq.waitForSent((sent) => sent.text === "Bob你好", 5_000);

    expect(s.qq.sent.map((sent) => sent.text)).toEqual(["一", "二", TOO_FAST, "Bob你好"]);
    expect(s.llm.requests).toHaveLength(6);
    const why = (await refusals(s.bot)).map((r) => r.why);
    expect(why).toEqual([
      {
        type: "limit.reached",
        data: expect.objectContaining({ limit: "userTurnsPerMinute", value: 2, max: 2, notified: false }),
      },
      {
        type: "limit.reached",
        data: expect.objectContaining({
          limit: "userTurnsPerMinute",
          subject: `onebot:${ALICE}`,
          userId: ALICE,
          groupId: GROUP_A,
          value: 2,
          max: 2,
          notified: true,
        }),
      },
    ]);
  });

  it("refuses a group's turns beyond its limit, whoever asks", async () => {
    const s = await start({ limits: { groupTurnsPerMinute: 1, notify: false } });
    answer(s, "一");
    say(s, GROUP_A, ALICE, mention("问个事"));
    await s.qq.waitForSent((sent) => sent.text === "一", 5_000);
    say(s, GROUP_A, BOB, mention("我也问"));
    answer(s, "B群你好");
    say(s, GROUP_B, BOB, mention("问个事"));
    await s.qq.waitForSent((sent) => sent.text === "B群你好", 5_000);
    await waitForRefusals(s.bot, 1);

    expect(s.qq.sent.map((sent) => sent.text)).toEqual(["一", "B群你好"]);
    expect((await refusals(s.bot))[0]!.why.data).toMatchObject({
      limit: "groupTurnsPerMinute",
      subject: SESSION_A,
      notified: false,
    });
  });
});

describe("daily token budgets", () => {
  it("stops a group over its budget after one notice, answers other groups, and still knows after a restart", async () => {
    const s = await start({ limits: { groupDailyTokens: 100 } });
    answer(s, "A群你好", { planner: 70, replyer: 45 });
    say(s, GROUP_A, ALICE, mention("在吗"));
    await s.qq.waitForSent((sent) => sent.text === "A群你好", 5_000);
    say(s, GROUP_A, ALICE, mention("再聊聊"));
    await s.qq.waitForSent((sent) => sent.text === BUDGET_GONE, 5_000);
    say(s, GROUP_A, BOB, mention("我也来"));
    await waitForRefusals(s.bot, 2);
    // Within group B's own budget: a turn that crossed it would stop before its replyer call.
    answer(s, "B群你好", { planner: 40, replyer: 40 });
    say(s, GROUP_B, BOB, mention("在吗"));
    await s.qq.waitForSent((sent) => sent.text === "B群你好", 5_000);

    expect(s.qq.sent.map((sent) => [sent.groupId, sent.text])).toEqual([
      [GROUP_A, "A群你好"],
      [GROUP_A, BUDGET_GONE],
      [GROUP_B, "B群你好"],
    ]);
    expect(s.llm.requests).toHaveLength(4);
    const [silent, noticed] = await refusals(s.bot);
    expect(noticed!.why.data).toMatchObject({
      limit: "groupDailyTokens",
      subject: SESSION_A,
      value: 115,
      max: 100,
      notified: true,
    });
    expect(silent!.why.data).toMatchObject({ limit: "groupDailyTokens", notified: false });

    // Today's spending is read back from the database: a restart does not reset the budget.
    await s.bot.stop();
    const again = await startBot({
      llm: s.llm,
      dataDir: s.bot.dataDir,
      config: { limits: { groupDailyTokens: 100 } },
    });
    const qq = new OneBotStandIn({ selfId: SELF });
    try {
      await qq.connectReverse(again.wsUrl);
      qq.pushGroupMessage({ groupId: GROUP_A, userId: ALICE, message: mention("我回来了") });
      await qq.waitForSent((sent) => sent.text === BUDGET_GONE, 5_000);
      expect(s.llm.requests).toHaveLength(4);
    } finally {
      await qq.close();
      await again.stop();
    }
  });

  it("stops every chat once all of them together are over the daily budget", async () => {
    const s = await start({ limits: { dailyTokens: 100 } });
    answer(s, "A群你好", { planner: 70, replyer: 45 });
    say(s, GROUP_A, ALICE, mention("在吗"));
    await s.qq.waitForSent((sent) => sent.text === "A群你好", 5_000);
    s.qq.pushPrivateMessage({ userId: BOB, message: "在吗" });
    await s.qq.waitForSent((sent) => sent.text === BUDGET_GONE, 5_000);

    expect(s.qq.sent.map((sent) => [sent.action, sent.text])).toEqual([
      ["send_group_msg", "A群你好"],
      ["send_private_msg", BUDGET_GONE],
    ]);
    expect(s.llm.requests).toHaveLength(2);
    expect((await refusals(s.bot))[0]!.why.data).toMatchObject({
      limit: "dailyTokens",
      subject: "all",
      value: 115,
    });
  });
});
