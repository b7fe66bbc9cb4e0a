import { afterEach, describe, expect, it } from "vitest";
import type { Batch } from "../../src/chat/batch.ts";
import { LIMIT_NOTICES } from "../../src/chat/budgets.ts";
import type { LimitSettings } from "../../src/chat/config.ts";
import { SlidingWindowCounter } from "../../src/chat/rate-limiter.ts";
import { PeriodSpendingTally } from "../../src/chat/spending.ts";
import { TURN_WINDOW_MS, TurnLimits } from "../../src/chat/turn-limits.ts";
import { zonedClock } from "../../src/context/clock-text.ts";
import type { ChatMessage } from "../../src/message/inbound.ts";
import { type MonitorEvent, MonitorHub } from "../../src/monitor/monitor.ts";
import { adminPrivateChats } from "../../src/plugins/admins.ts";
import { openStore } from "../../src/store/open-store.ts";
import type { Stores } from "../../src/store/types.ts";
import { ManualClock } from "../support/manual-clock.ts";
import { captureLog, groupMessage } from "../support/store.ts";

const SESSION = "onebot:10000:group:20000";
const OFF: LimitSettings = {
  userTurnsPerMinute: 0,
  groupTurnsPerMinute: 0,
  dailyTokens: 0,
  groupDailyTokens: 0,
  userDailyTokens: 0,
  dailyCost: 0,
  monthlyCost: 0,
  groupDailyCost: 0,
  groupMonthlyCost: 0,
  userDailyCost: 0,
  economyAt: 0,
  notify: true,
};

let stores: Stores;
afterEach(() => stores.close());

async function setUp(
  settings: Partial<LimitSettings>,
  setting: { economy?: string[]; admins?: string[] } = {},
) {
  stores = await openStore("sqlite::memory:", captureLog().logger);
  const clock = new ManualClock();
  const monitor = new MonitorHub();
  const events: MonitorEvent[] = [];
  monitor.subscribe((event) => events.push(event));
  const notices: Array<{ sessionId: string; text: string }> = [];
  const utc = zonedClock("UTC");
  const spending = {
    day: new PeriodSpendingTally("day", stores.usage, () => utc, clock),
    month: new PeriodSpendingTally("month", stores.usage, () => utc, clock),
  };
  /** An LLM call of this chat, recorded as the app records it (with its cost when given). */
  const spend = (promptTokens: number, cost?: number) => {
    const usage = {
      time: clock.now(),
      task: "digest",
      provider: "main",
      model: "m",
      promptTokens,
      completionTokens: 0,
      latencyMs: 1,
      success: true,
      sessionId: SESSION,
      ...(cost !== undefined && { cost }),
    };
    stores.usage.record(usage);
    spending.day.add(usage);
    spending.month.add(usage);
  };
  const limits = new TurnLimits({
    settings: () => ({ ...OFF, ...settings }),
    economyModels: () => setting.economy ?? [],
    adminChats: (origin) => adminPrivateChats(origin, setting.admins ?? []),
    spending,
    turns: new SlidingWindowCounter(TURN_WINDOW_MS),
    clock,
    sendNotice: async (origin, text) => {
      notices.push({ sessionId: origin.sessionId, text });
    },
    monitor,
    logger: captureLog().logger,
  });
  const reasons = () => events.filter((e) => e.type === "turn.finished").map((e) => e.data.reason);
  return { limits, clock, notices, reasons, events, spend };
}

let nextId = 1;
function said(userId: string): ChatMessage {
  return groupMessage({ userId, messageId: String(nextId++) });
}

function realtime(...messages: ChatMessage[]): Batch {
  return { kind: "realtime", sessionId: SESSION, messages, triggerIds: messages.map((m) => m.messageId) };
}

describe("turn limits", () => {
  it("takes a user over their rate out of a merged batch and answers the others", async () => {
    const { limits, notices } = await setUp({ userTurnsPerMinute: 1 });
    expect(await limits.admit(realtime(said("alice")))).toBeDefined();

    const alice = said("alice");
    const bob = said("bob");
    const admitted = await limits.admit(realtime(alice, bob));
    expect(admitted?.messages).toEqual([bob]);
    expect(admitted?.triggerIds).toEqual([bob.messageId]);
    expect(notices).toEqual([{ sessionId: SESSION, text: LIMIT_NOTICES.userTurnsPerMinute }]);
  });

  it("notices once per limited period, and again once the window has freed and filled up", async () => {
    const { limits, clock, notices, reasons } = await setUp({ userTurnsPerMinute: 1 });
    await limits.admit(realtime(said("alice")));
    expect(await limits.admit(realtime(said("alice")))).toBeUndefined();
    clock.advance(30_000);
    expect(await limits.admit(realtime(said("alice")))).toBeUndefined();
    expect(notices).toHaveLength(1);

    clock.advance(30_000);
    expect(await limits.admit(realtime(said("alice")))).toBeDefined();
    expect(await limits.admit(realtime(said("alice")))).toBeUndefined();
    expect(notices).toHaveLength(2);
    expect(reasons()).toEqual([
      "limits.userTurnsPerMinute reached: 1/1 (onebot:alice)",
      "limits.userTurnsPerMinute reached: 1/1 (onebot:alice)",
      "limits.userTurnsPerMinute reached: 1/1 (onebot:alice)",
    ]);
  });

  it("counts only turns that start: refused asks do not extend the wait", async () => {
    const { limits, clock } = await setUp({ groupTurnsPerMinute: 2 });
    await limits.admit(realtime(said("alice")));
    await limits.admit(realtime(said("bob")));
    for (let i = 0; i < 5; i++) {
      clock.advance(10_000);
      expect(await limits.admit(realtime(said("carol")))).toBeUndefined();
    }
    clock.advance(10_000);
    expect(await limits.admit(realtime(said("carol")))).toBeDefined();
  });

  it("refuses a digest over budget without a notice and never counts digests as turns", async () => {
    const { limits, notices, events, spend } = await setUp({ groupDailyTokens: 100, groupTurnsPerMinute: 1 });
    const digest: Batch = { kind: "digest", sessionId: SESSION, messages: [said("alice")], triggerIds: [] };
    expect(await limits.admit(digest)).toBeDefined();
    expect(await limits.admit(digest)).toBeDefined();

    spend(100);
    expect(await limits.admit({ ...digest, messages: [said("alice")] })).toBeUndefined();
    expect(notices).toEqual([]);
    expect(events.find((e) => e.type === "limit.reached")?.data).toMatchObject({
      limit: "groupDailyTokens",
      value: 100,
      max: 100,
      notified: false,
    });
  });

  it("runs a group's turns on the economy models from limits.economyAt of its money budget, then stops them", async () => {
    const { limits, notices, spend, clock } = await setUp(
      { groupDailyCost: 1, economyAt: 0.8 },
      { economy: ["cheap/m"], admins: ["10001", "onebot:10002", "stdio.web:10003"] },
    );
    spend(100, 0.5);
    expect((await limits.admit(realtime(said("alice"))))?.economy).toBeUndefined();
    spend(100, 0.35);
    const stepped = await limits.admit(realtime(said("alice")));
    expect(stepped?.economy).toEqual({ limit: "groupDailyCost", share: expect.closeTo(0.85, 5) });
    // The admins of this platform are told once, in private; the stdio admin is of another platform.
    expect(notices.map((notice) => notice.sessionId)).toEqual([
      "onebot:10000:private:10001",
      "onebot:10000:private:10002",
    ]);
    expect(notices[0]!.text).toContain("limits.groupDailyCost");
    expect((await limits.admit(realtime(said("bob"))))?.economy).toBeDefined();
    expect(notices).toHaveLength(2);

    spend(100, 0.2);
    expect(await limits.admit(realtime(said("alice")))).toBeUndefined();
    expect(await limits.admit(realtime(said("bob")))).toBeUndefined();
    expect(notices.slice(2)).toEqual([{ sessionId: SESSION, text: LIMIT_NOTICES.groupDailyCost }]);

    // The next day the group starts afresh, on its usual models.
    clock.advance(86_400_000);
    expect((await limits.admit(realtime(said("alice"))))?.economy).toBeUndefined();
  });

  it("reports each budget's use now, for all chats and a group, with its economy state, and tells nobody", async () => {
    const { limits, notices, spend, clock } = await setUp(
      { groupDailyCost: 1, monthlyCost: 10, dailyTokens: 1_000, userDailyCost: 1, economyAt: 0.8 },
      { economy: ["cheap/m"], admins: ["10001"] },
    );
    spend(100, 0.85);
    const all = await limits.report();
    expect(all).toEqual({
      budgets: [
        {
          limit: "dailyTokens",
          scope: "all",
          period: "day",
          periodName: "2023-11-14",
          measure: "tokens",
          used: 100,
          max: 1_000,
          share: 0.1,
        },
        {
          limit: "monthlyCost",
          scope: "all",
          period: "month",
          periodName: "2023-11",
          measure: "cost",
          used: 0.85,
          max: 10,
          share: expect.closeTo(0.085, 6),
        },
      ],
      economy: false,
      stopped: false,
    });
    const group = await limits.report(SESSION);
    // The user's own budget counts only for the turns they start: not part of a group's report.
    expect(group.budgets.map((budget) => budget.limit)).toEqual([
      "dailyTokens",
      "monthlyCost",
      "groupDailyCost",
    ]);
    expect(group.budgets[2]).toMatchObject({
      scope: "group",
      used: 0.85,
      max: 1,
      share: expect.closeTo(0.85, 6),
    });
    expect(group).toMatchObject({ economy: true, stopped: false });
    expect(await limits.report("onebot:10000:group:20001")).toMatchObject({ economy: false, stopped: false });
    expect(notices).toEqual([]);

    spend(100, 0.2);
    expect(await limits.report(SESSION)).toMatchObject({ economy: false, stopped: true });
    clock.advance(86_400_000);
    expect(await limits.report(SESSION)).toMatchObject({ economy: false, stopped: false });
  });

  it("does not step down without economy models, but still tells the admins once", async () => {
    const { limits, notices, spend } = await setUp(
      { groupDailyTokens: 1_000, economyAt: 0.8 },
      { admins: ["10001"] },
    );
    spend(900);
    expect((await limits.admit(realtime(said("alice"))))?.economy).toBeUndefined();
    expect(notices).toHaveLength(1);
  });

  it("counts a month's spending against limits.monthlyCost", async () => {
    const { limits, spend, clock, reasons } = await setUp({ monthlyCost: 2, economyAt: 0 });
    spend(10, 1.5);
    clock.advance(86_400_000); // the next day, the same month
    spend(10, 0.75);
    expect(await limits.admit(realtime(said("alice")))).toBeUndefined();
    expect(reasons()).toEqual(["limits.monthlyCost reached: 2.25/2 (all)"]);
  });
});
