/**
 * Reminders: a member sets one with /remind, the bot is restarted before its time, and it is
 * sent once at its time, mentioning them, worded by the replyer model (or as stored when no
 * model answers); the console lists it. The planner's `schedule` tool sets one too.
 */
import { afterEach, describe, expect, it } from "vitest";
import { validateConfig } from "../../src/config/validate.ts";
import { type BotHarness, startBot } from "../support/bot-harness.ts";
import { ALICE, GROUP, groupSession, mention, SELF } from "../support/messages.ts";
import { OneBotStandIn, type SentMessage } from "../support/onebot-standin.ts";
import { ScriptedLlmServer } from "../support/scripted-llm-server.ts";

let llm: ScriptedLlmServer | undefined;
let bot: BotHarness | undefined;
let qq: OneBotStandIn | undefined;
afterEach(async () => {
  await qq?.close();
  await bot?.dispose();
  await llm?.close();
  qq = bot = llm = undefined;
});

async function connect(dataDir?: string): Promise<{ bot: BotHarness; qq: OneBotStandIn }> {
  bot = await startBot({ llm: llm!, ...(dataDir === undefined ? {} : { dataDir }) });
  qq = new OneBotStandIn({ selfId: SELF });
  await qq.connectReverse(bot.wsUrl);
  return { bot, qq };
}

const mentionsAlice = (sent: SentMessage) =>
  Array.isArray(sent.message) &&
  (sent.message as { type: string; data: { qq?: string } }[]).some(
    (segment) => segment.type === "at" && String(segment.data.qq) === ALICE,
  );

async function listed(harness: BotHarness): Promise<Record<string, unknown>[]> {
  const answer = await fetch(`${harness.baseUrl}/api/reminders`);
  return ((await answer.json()) as { reminders: Record<string, unknown>[] }).reminders;
}

describe("reminders", () => {
  it("fires once at its time after a restart in between, worded in the persona, and shows in the console", async () => {
    llm = await ScriptedLlmServer.start();
    const first = await connect();
    first.qq.pushGroupMessage({
      groupId: GROUP,
      userId: ALICE,
      nickname: "Alice",
      message: "/remind 4s 交作业",
    });
    const confirmed = await first.qq.waitForSent(undefined, 5_000);
    expect(confirmed.text).toMatch(/提醒你：交作业（#1，\/cancel 1 取消）$/);
    expect(await listed(first.bot)).toMatchObject([
      { id: 1, userId: ALICE, text: "交作业", status: "pending", sessionId: groupSession() },
    ]);

    await first.qq.close();
    await first.bot.stop();
    llm.enqueue({ text: "Alice，该交作业啦！" });
    const second = await connect(first.bot.dataDir);
    const reminded = await second.qq.waitForSent(mentionsAlice, 10_000);
    expect(reminded.text).toContain("Alice，该交作业啦！");
    expect(reminded.groupId).toBe(GROUP);
    const wording = llm.requests.at(-1)!;
    expect(wording.promptText).toContain("交作业");

    // Once: later polls find nothing due.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(second.qq.sent.filter(mentionsAlice)).toHaveLength(1);
    expect(await listed(second.bot)).toMatchObject([{ id: 1, status: "sent", late: false }]);
  });

  it("sends the stored text when no model words it, and is cancelled with /cancel", async () => {
    llm = await ScriptedLlmServer.start();
    const { qq: chat } = await connect();
    chat.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: "/提醒 1h 开会" });
    await chat.waitForSent((sent) => sent.text.includes("#1"), 5_000);
    chat.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: "/cancel 1" });
    await chat.waitForSent((sent) => sent.text === "已取消提醒 #1。", 5_000);

    llm.enqueue({ status: 400 });
    chat.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: "/提醒 2s 喝水" });
    const reminded = await chat.waitForSent(mentionsAlice, 8_000);
    expect(reminded.text).toBe(" 提醒：喝水");
    chat.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: "/reminders" });
    await chat.waitForSent((sent) => sent.text === "你在这里没有待发的提醒。", 5_000);
  });

  it("sets a reminder from the planner's schedule tool for the person it answers", async () => {
    llm = await ScriptedLlmServer.start();
    const { bot: harness, qq: chat } = await connect();
    llm.enqueue(
      { toolCalls: [{ name: "schedule", arguments: { time: "2h", text: "交作业" } }] },
      { toolCalls: [{ name: "reply", arguments: {} }] },
      { text: "好，两小时后提醒你" },
    );
    chat.pushGroupMessage({
      groupId: GROUP,
      userId: ALICE,
      nickname: "Alice",
      message: mention("两小时后提醒我交作业"),
    });
    await chat.waitForSent(undefined, 8_000);
    const toolResult = llm.requests[1]!.body.messages.find((message) => message.role === "tool");
    expect(String(toolResult?.content)).toMatch(/^reminder #1 set for \d{4}-\d\d-\d\d \d\d:\d\d/);
    expect(await listed(harness)).toMatchObject([
      { id: 1, userId: ALICE, text: "交作业", status: "pending" },
    ]);
  });
});

describe("scheduled messages", () => {
  it("sends a schedules: entry's text to its chat at each time of its cron expression", async () => {
    llm = await ScriptedLlmServer.start();
    bot = await startBot({
      llm,
      config: { schedules: [{ cron: "* * * * * *", chat: `group:${GROUP}`, text: "每秒一条定时消息" }] },
    });
    qq = new OneBotStandIn({ selfId: SELF });
    await qq.connectReverse(bot.wsUrl);
    const sent = await qq.waitForSent((message) => message.text === "每秒一条定时消息", 8_000);
    expect(sent.groupId).toBe(GROUP);
    await bot.waitForEvent("schedule.sent", (event) => event.data.chat === `group:${GROUP}`);
  });

  it("refuses a config whose cron expression cannot be read, naming the key", () => {
    const result = validateConfig({ schedules: [{ cron: "every monday", chat: "group:1", text: "hi" }] });
    expect(result.ok).toBe(false);
    expect(result.ok ? [] : result.problems.join("\n")).toMatch(/^schedules\[0\]\.cron: /m);
  });
});
