/**
 * Times as people and models write them, over the wire: each phrase of /提醒 and /remind sets
 * the right absolute time in Asia/Shanghai (the expected times are worked out here from the
 * real clock, without chrono), the reply confirms the time read, a past time is refused with
 * the reason, and the planner's `schedule` with an ISO 8601 time fires once after a restart.
 */
import { afterEach, describe, expect, it } from "vitest";
import { type BotHarness, startBot } from "../support/bot-harness.ts";
import { ALICE, GROUP, mention, SELF } from "../support/messages.ts";
import { OneBotStandIn, type SentMessage } from "../support/onebot-standin.ts";
import { ScriptedLlmServer } from "../support/scripted-llm-server.ts";

const ZONE = "Asia/Shanghai";
/** Shanghai keeps +08:00 all year. */
const OFFSET_MS = 8 * 3_600_000;
const DAY_MS = 86_400_000;

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
  bot = await startBot({
    llm: llm!,
    config: { chat: { timezone: ZONE }, reminders: { maxPerPerson: 50 } },
    ...(dataDir === undefined ? {} : { dataDir }),
  });
  qq = new OneBotStandIn({ selfId: SELF });
  await qq.connectReverse(bot.wsUrl);
  return { bot, qq };
}

/** Unix ms of a Shanghai wall-clock time, `days` after today in Shanghai. */
function shanghai(days: number, hour: number, minute = 0, now = Date.now()): number {
  const midnight = Math.floor((now + OFFSET_MS) / DAY_MS) * DAY_MS - OFFSET_MS;
  return midnight + days * DAY_MS + hour * 3_600_000 + minute * 60_000;
}

/** Days from today (Shanghai) to the Monday of next week, weeks running Monday to Sunday. */
function daysToNextMonday(now = Date.now()): number {
  const weekday = new Date(now + OFFSET_MS).getUTCDay(); // 0 Sunday
  return 7 - ((weekday + 6) % 7);
}

/** `YYYY-MM-DD HH:mm` in Shanghai. */
function shown(ms: number): string {
  return new Date(ms + OFFSET_MS).toISOString().slice(0, 16).replace("T", " ");
}

async function dueTimes(harness: BotHarness): Promise<Map<string, number>> {
  const answer = await fetch(`${harness.baseUrl}/api/reminders`);
  const { reminders } = (await answer.json()) as { reminders: { text: string; dueAt: number }[] };
  return new Map(reminders.map((reminder) => [reminder.text, reminder.dueAt]));
}

describe("reminder times as people write them", () => {
  it("sets each phrase's absolute time in Asia/Shanghai and confirms it", async () => {
    llm = await ScriptedLlmServer.start();
    const { bot: harness, qq: chat } = await connect();
    const now = Date.now();
    const nextTwenty = shanghai(0, 20) > now ? shanghai(0, 20) : shanghai(1, 20);
    // [command, what to remind of, expected time, tolerance for relative times]
    const phrases: [string, string, number, number][] = [
      ["/提醒 30分钟后", "喝水", now + 30 * 60_000, 20_000],
      ["/提醒 两小时后", "起来走走", now + 2 * 3_600_000, 20_000],
      ["/remind in 2 hours", "stretch", now + 2 * 3_600_000, 20_000],
      ["/提醒 明天早上9点", "开会", shanghai(1, 9), 0],
      ["/提醒 后天下午三点", "交报告", shanghai(2, 15), 0],
      ["/提醒 下周一 10:00", "周会", shanghai(daysToNextMonday(now), 10), 0],
      ["/remind tomorrow 9am", "standup", shanghai(1, 9), 0],
      ["/提醒 2027-03-01 09:30", "开学", Date.parse("2027-03-01T09:30:00+08:00"), 0],
      ["/提醒 30m", "泡面", now + 30 * 60_000, 20_000],
      ["/提醒 20:00", "交作业", nextTwenty, 0],
    ];
    if (shanghai(0, 20) > now + 60_000) phrases.push(["/提醒 今晚八点", "看剧", shanghai(0, 20), 0]);
    for (const [command, text, expected, tolerance] of phrases) {
      chat.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: `${command} ${text}` });
      const reply = await chat.waitForSent((sent: SentMessage) => sent.text.includes(text), 8_000);
      const due = (await dueTimes(harness)).get(text);
      expect(due, command).toBeDefined();
      expect(
        Math.abs(due! - expected),
        `${command}: ${shown(due!)}, not ${shown(expected)}`,
      ).toBeLessThanOrEqual(tolerance);
      // The reply confirms the absolute time read.
      expect(reply.text).toContain(shown(due!));
    }
  }, 120_000);

  it("refuses a time already past, naming the time read and now", async () => {
    llm = await ScriptedLlmServer.start();
    const { qq: chat } = await connect();
    chat.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: "/提醒 2020-01-01 09:00 交作业" });
    const refused = await chat.waitForSent(undefined, 8_000);
    expect(refused.text).toMatch(
      /^2020-01-01 09:00 已经过去了（现在是 \d{4}-\d\d-\d\d \d\d:\d\d），换一个以后的时间吧$/,
    );
    chat.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: "/提醒 找个时间 交作业" });
    const usage = await chat.waitForSent((sent) => sent !== refused, 8_000);
    expect(usage.text).toMatch(/^用法：\/提醒 <时间> <内容>/);
  });

  it("schedule with an ISO 8601 time fires once, after a restart", async () => {
    llm = await ScriptedLlmServer.start();
    const first = await connect();
    const dueAt = Math.ceil((Date.now() + 8_000) / 1_000) * 1_000;
    const iso = new Date(dueAt).toISOString().replace(".000Z", "Z");
    llm.enqueue(
      { toolCalls: [{ name: "schedule", arguments: { time: iso, text: "交作业" } }] },
      { toolCalls: [{ name: "reply", arguments: {} }] },
      { text: "好，到时候提醒你" },
    );
    first.qq.pushGroupMessage({
      groupId: GROUP,
      userId: ALICE,
      nickname: "Alice",
      message: mention(`${iso} 提醒我交作业`),
    });
    await first.qq.waitForSent(undefined, 8_000);
    const toolResult = llm.requests[1]!.body.messages.find((message) => message.role === "tool");
    expect(String(toolResult?.content)).toContain(`set for ${shown(dueAt)} in ${ZONE}`);
    expect((await dueTimes(first.bot)).get("交作业")).toBe(dueAt);

    await first.qq.close();
    await first.bot.stop();
    llm.enqueue({ text: "Alice，该交作业啦！" });
    const second = await connect(first.bot.dataDir);
    const isReminder = (sent: SentMessage) => sent.text.includes("该交作业啦");
    await second.qq.waitForSent(isReminder, 15_000);
    expect(Date.now()).toBeGreaterThanOrEqual(dueAt);
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(second.qq.sent.filter(isReminder)).toHaveLength(1);
  }, 60_000);
});
