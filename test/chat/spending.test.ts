import { describe, expect, it } from "vitest";
import { PeriodSpendingTally, startOfDay, startOfPeriod } from "../../src/chat/spending.ts";
import { zonedClock } from "../../src/context/clock-text.ts";
import { openStore } from "../../src/store/open-store.ts";
import type { UsageRecord } from "../../src/store/types.ts";
import { ManualClock } from "../support/manual-clock.ts";
import { captureLog } from "../support/store.ts";

const GROUP_A = "onebot:10000:group:1";
const GROUP_B = "onebot:10000:group:2";
const SHANGHAI = zonedClock("Asia/Shanghai");
/** 2025-05-01 10:00 in Shanghai. */
const MORNING = Date.UTC(2025, 4, 1, 2);

function call(time: number, tokens: number, sessionId?: string, cost?: number): UsageRecord {
  return {
    time,
    task: "planner",
    provider: "main",
    model: "m",
    promptTokens: tokens - 1,
    completionTokens: 1,
    latencyMs: 10,
    success: true,
    ...(sessionId === undefined ? {} : { sessionId }),
    ...(cost === undefined ? {} : { cost }),
  };
}

/** A tally over a real (in-memory) usage store, with the store's queries counted. */
async function setUp(start = MORNING, period: "day" | "month" = "day") {
  const stores = await openStore("sqlite::memory:", captureLog().logger);
  const time = new ManualClock(start);
  let queries = 0;
  const source = {
    spendBySession: (query: { sinceMs: number }) => {
      queries++;
      return stores.usage.spendBySession(query);
    },
    spendByUser: (query: { sinceMs: number }) => stores.usage.spendByUser(query),
  };
  const periodTally = new PeriodSpendingTally(period, source, () => SHANGHAI, time);
  const record = (usage: UsageRecord) => {
    stores.usage.record(usage);
    periodTally.add(usage);
  };
  /** The tally's tokens, as the token budgets read them. */
  const tally = {
    today: async (sessionId: string, userKey?: string) => {
      const spent = await periodTally.spent(sessionId, userKey);
      return {
        day: spent.period,
        total: spent.total.tokens,
        session: spent.session.tokens,
        user: spent.user.tokens,
      };
    },
  };
  return { stores, time, tally, periodTally, record, queries: () => queries };
}

describe("today's token tally", () => {
  it("reads today's spending from the store once, then counts calls as they are recorded", async () => {
    const { stores, tally, record, queries } = await setUp();
    stores.usage.record(call(MORNING - 3 * 3_600_000, 100, GROUP_A)); // 07:00 today
    stores.usage.record(call(MORNING - 11 * 3_600_000, 1_000, GROUP_A)); // 23:00 yesterday
    stores.usage.record(call(MORNING - 60_000, 7)); // a console model test: no chat

    expect(await tally.today(GROUP_A)).toEqual({ day: "2025-05-01", total: 107, session: 100, user: 0 });
    record(call(MORNING, 50, GROUP_A));
    record(call(MORNING, 20, GROUP_B));
    expect(await tally.today(GROUP_A)).toEqual({ day: "2025-05-01", total: 177, session: 150, user: 0 });
    expect((await tally.today(GROUP_B)).session).toBe(20);
    expect(queries()).toBe(1);
    await stores.close();
  });

  it("counts each user's turns, read from the store after a restart and as calls are recorded", async () => {
    const { stores, tally, record } = await setUp();
    const alice = "onebot:30001";
    stores.usage.record({ ...call(MORNING - 3_600_000, 100, GROUP_A), userKey: alice });
    stores.usage.record({ ...call(MORNING - 3_600_000, 60, "onebot:10000:private:30001"), userKey: alice });
    stores.usage.record(call(MORNING - 3_600_000, 7, GROUP_A)); // a digest: nobody's turn

    expect(await tally.today(GROUP_A, alice)).toEqual({
      day: "2025-05-01",
      total: 167,
      session: 107,
      user: 160,
    });
    record({ ...call(MORNING, 40, GROUP_B), userKey: alice });
    record({ ...call(MORNING, 5, GROUP_B), userKey: "onebot:30002" });
    expect(await tally.today(GROUP_B, alice)).toMatchObject({ total: 212, session: 45, user: 200 });
    expect((await tally.today(GROUP_B, "onebot:30002")).user).toBe(5);
    expect((await tally.today(GROUP_B)).user).toBe(0);
    await stores.close();
  });

  it("counts a call recorded before the first question exactly once", async () => {
    const { stores, tally, record } = await setUp();
    record(call(MORNING, 40, GROUP_A));
    expect(await tally.today(GROUP_A)).toMatchObject({ total: 40, session: 40 });
    await stores.close();
  });

  it("starts a new day at midnight in the chat's time zone", async () => {
    // 23:59 in Shanghai is 15:59 UTC.
    const lateEvening = Date.UTC(2025, 4, 1, 15, 59);
    const { stores, time, tally, record, queries } = await setUp(lateEvening);
    record(call(lateEvening, 500, GROUP_A));
    expect(await tally.today(GROUP_A)).toMatchObject({ day: "2025-05-01", session: 500 });

    time.advance(60_000);
    record(call(time.now(), 30, GROUP_A));
    expect(await tally.today(GROUP_A)).toEqual({ day: "2025-05-02", total: 30, session: 30, user: 0 });
    // A call that started before midnight and is recorded after it belongs to yesterday.
    record(call(lateEvening, 9, GROUP_A));
    expect((await tally.today(GROUP_A)).session).toBe(30);
    expect(queries()).toBe(2);
    await stores.close();
  });
});

describe("money spent", () => {
  it("sums the costs recorded with the calls, per chat and user, beside the tokens", async () => {
    const { stores, periodTally, record } = await setUp();
    const alice = "onebot:30001";
    stores.usage.record({ ...call(MORNING - 3_600_000, 100, GROUP_A, 0.25), userKey: alice });
    stores.usage.record(call(MORNING - 3_600_000, 50, GROUP_A)); // a model without a price
    expect(await periodTally.spent(GROUP_A, alice)).toEqual({
      period: "2025-05-01",
      total: { tokens: 150, cost: 0.25 },
      session: { tokens: 150, cost: 0.25 },
      user: { tokens: 100, cost: 0.25 },
    });
    record({ ...call(MORNING, 10, GROUP_B, 0.5), userKey: alice });
    expect(await periodTally.spent(GROUP_B, alice)).toMatchObject({
      total: { tokens: 160, cost: 0.75 },
      session: { tokens: 10, cost: 0.5 },
      user: { tokens: 110, cost: 0.75 },
    });
    await stores.close();
  });

  it("counts a month from the 1st in the chat's time zone, the month before left out", async () => {
    // 2025-05-31 23:30 in Shanghai.
    const lastEvening = Date.UTC(2025, 4, 31, 15, 30);
    const { stores, time, periodTally, record, queries } = await setUp(lastEvening, "month");
    stores.usage.record(call(Date.UTC(2025, 3, 30, 15, 59), 1, GROUP_A, 9)); // 2025-04-30 23:59 Shanghai
    stores.usage.record(call(Date.UTC(2025, 3, 30, 16), 1, GROUP_A, 2)); // 2025-05-01 00:00 Shanghai
    record(call(lastEvening, 1, GROUP_A, 1));
    expect(await periodTally.spent(GROUP_A)).toMatchObject({ period: "2025-05", session: { cost: 3 } });
    time.advance(3_600_000); // June in Shanghai
    record(call(time.now(), 1, GROUP_A, 4));
    expect(await periodTally.spent(GROUP_A)).toMatchObject({ period: "2025-06", session: { cost: 4 } });
    expect(queries()).toBe(2);
    await stores.close();
  });

  it("starts a month at local midnight of its 1st", () => {
    expect(startOfPeriod("month", SHANGHAI, MORNING)).toBe(Date.UTC(2025, 3, 30, 16));
    expect(startOfPeriod("month", SHANGHAI, Date.UTC(2025, 4, 20))).toBe(Date.UTC(2025, 3, 30, 16));
    expect(startOfPeriod("day", SHANGHAI, MORNING)).toBe(startOfDay(SHANGHAI, MORNING));
  });
});

describe("start of the day", () => {
  it("is local midnight, also on the days a zone moves its clocks", () => {
    expect(startOfDay(SHANGHAI, MORNING)).toBe(Date.UTC(2025, 3, 30, 16));
    const newYork = zonedClock("America/New_York");
    // 2024-03-10 springs forward at 02:00 (midnight is EST, -5); 2024-11-03 falls back (midnight is EDT, -4).
    expect(startOfDay(newYork, Date.UTC(2024, 2, 10, 16, 30))).toBe(Date.UTC(2024, 2, 10, 5));
    expect(startOfDay(newYork, Date.UTC(2024, 10, 3, 20, 15, 7, 250))).toBe(Date.UTC(2024, 10, 3, 4));
    expect(startOfDay(newYork, Date.UTC(2024, 10, 3, 4))).toBe(Date.UTC(2024, 10, 3, 4));
  });
});
