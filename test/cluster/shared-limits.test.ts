/**
 * Rate limits and token budgets shared by the instances of a cluster through a real Redis:
 * two `sharedLimits` over one Redis are two instances; the usage store is a real
 * one both write to, as they share PostgreSQL.
 */
import type { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import type { WindowLimit } from "../../src/chat/rate-limiter.ts";
import { TURN_WINDOW_MS } from "../../src/chat/turn-limits.ts";
import { ClusterKeys } from "../../src/cluster/keys.ts";
import { connectRedis } from "../../src/cluster/redis-client.ts";
import { sharedLimits } from "../../src/cluster/shared-limits.ts";
import { zonedClock } from "../../src/context/clock-text.ts";
import { openStore } from "../../src/store/open-store.ts";
import type { Stores, UsageRecord } from "../../src/store/types.ts";
import { LOG_LEVEL, LogCapture } from "../support/log-capture.ts";
import { ManualClock } from "../support/manual-clock.ts";
import { freshRedis, type RedisServer, startRedisServer } from "../support/redis-server.ts";
import { sleep, waitFor } from "../support/wait.ts";

const SHANGHAI = zonedClock("Asia/Shanghai");
/** 2025-05-01 10:00 in Shanghai. */
const MORNING = Date.UTC(2025, 4, 1, 2);
const GROUP = "onebot:10000:group:1";
const OTHER_GROUP = "onebot:10000:group:2";
const ALICE: WindowLimit = { key: "user:onebot:alice", limit: 3 };

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function call(time: number, tokens: number, sessionId: string): UsageRecord {
  return {
    time,
    task: "replyer",
    provider: "main",
    model: "m",
    promptTokens: tokens,
    completionTokens: 0,
    latencyMs: 10,
    success: true,
    sessionId,
  };
}

/** The usage store all instances write to, with its reads of today's spending counted. */
async function sharedStore() {
  const stores: Stores = await openStore("sqlite::memory:", new LogCapture().logger());
  cleanups.push(() => stores.close());
  let reads = 0;
  const store = {
    spendBySession: (query: { sinceMs: number }) => {
      reads++;
      return stores.usage.spendBySession(query);
    },
    spendByUser: (query: { sinceMs: number }) => stores.usage.spendByUser(query),
  };
  return { usage: stores.usage, store, reads: () => reads };
}

/** One instance's limits over the Redis at `url`, as app.ts builds them. */
async function instance(url: string, keyPrefix: string, store: Awaited<ReturnType<typeof sharedStore>>) {
  const log = new LogCapture();
  const logger = log.logger();
  const redis: Redis = await connectRedis(url, "shared-limits-test", logger);
  cleanups.push(() => redis.disconnect());
  const time = new ManualClock(MORNING);
  /** Whether `limits.dailyTokens` (or the group's) is set on this instance. */
  const budget = { set: true };
  const limits = sharedLimits({
    redis,
    keys: new ClusterKeys(keyPrefix),
    store: store.store,
    clock: () => SHANGHAI,
    time,
    budgets: () => budget.set,
    logger,
  });
  /** Today's tokens, as the token budgets read them; every call counted as app.ts counts it. */
  const tokens = {
    add: (usage: UsageRecord) => {
      limits.spending.day.add(usage);
      limits.spending.month.add(usage);
    },
    today: async (sessionId: string, userKey?: string) => {
      const spent = await limits.spending.day.spent(sessionId, userKey);
      return {
        day: spent.period,
        total: spent.total.tokens,
        session: spent.session.tokens,
        user: spent.user.tokens,
      };
    },
  };
  /** An LLM call of this instance (with its cost when given), stored and counted as the app does. */
  const spend = (tokenCount: number, sessionId = GROUP, cost?: number) => {
    const usage = { ...call(time.now(), tokenCount, sessionId), ...(cost !== undefined && { cost }) };
    store.usage.record(usage);
    tokens.add(usage);
  };
  return { ...limits, tokens, time, spend, log, budget, redis };
}

async function twoInstances() {
  const { url, keyPrefix } = await freshRedis();
  const store = await sharedStore();
  const a = await instance(url, keyPrefix, store);
  const b = await instance(url, keyPrefix, store);
  return { a, b, store, url, keyPrefix };
}

describe("rate limits shared by instances", () => {
  it("admits exactly the limit between two instances asking at once, until the window frees", async () => {
    const { a, b } = await twoInstances();
    const asks = Array.from({ length: 10 }, (_, i) =>
      (i % 2 === 0 ? a : b).turns.admit({ each: [ALICE] }, MORNING + i),
    );
    const verdicts = (await Promise.all(asks)).map((verdict) => verdict.each[0]!);
    expect(verdicts.filter((verdict) => verdict.admitted)).toHaveLength(3);
    const refused = verdicts.find((verdict) => !verdict.admitted)!;
    expect(refused.count).toBe(3);

    // The first of the three leaves the window a minute after it was counted, on either instance.
    const firstAdmitted = MORNING + verdicts.findIndex((verdict) => verdict.admitted);
    expect(refused.freesAt).toBe(firstAdmitted + TURN_WINDOW_MS);
    expect((await b.turns.admit({ each: [ALICE] }, refused.freesAt - 1)).each[0]?.admitted).toBe(false);
    expect((await a.turns.admit({ each: [ALICE] }, refused.freesAt)).each[0]?.admitted).toBe(true);
    expect((await b.turns.admit({ each: [ALICE] }, refused.freesAt)).each[0]?.admitted).toBe(false);
  });

  it("counts a turn for the group and its users only when it starts", async () => {
    const { a, b } = await twoInstances();
    const group: WindowLimit = { key: `group:${GROUP}`, limit: 2 };
    const user = (name: string): WindowLimit => ({ key: `user:onebot:${name}`, limit: 1 });
    expect((await a.turns.admit({ whole: group, each: [user("alice")] }, MORNING)).each[0]?.admitted).toBe(
      true,
    );
    // Alice is over her minute: her second turn does not start, so the group's minute is not used.
    const again = await b.turns.admit({ whole: group, each: [user("alice")] }, MORNING + 1);
    expect(again.each[0]).toEqual({ admitted: false, count: 1, freesAt: MORNING + TURN_WINDOW_MS });
    const bob = await b.turns.admit({ whole: group, each: [user("bob")] }, MORNING + 2);
    expect(bob.whole).toEqual({ admitted: true, count: 1, freesAt: MORNING + 2 });
    // The group is full now: Carol's turn there is refused and does not use her own minute.
    const carol = await a.turns.admit({ whole: group, each: [user("carol")] }, MORNING + 3);
    expect(carol.whole).toEqual({ admitted: false, count: 2, freesAt: MORNING + TURN_WINDOW_MS });
    const elsewhere = await b.turns.admit(
      { whole: { key: `group:${OTHER_GROUP}`, limit: 2 }, each: [user("carol")] },
      MORNING + 4,
    );
    expect(elsewhere.each[0]?.admitted).toBe(true);
  });
});

describe("rate limits that are off", () => {
  it("still count a turn in Redis, so a limit set later sees it, without the turn waiting for that", async () => {
    const { a, b, keyPrefix } = await twoInstances();
    const verdict = await a.turns.admit({ each: [{ ...ALICE, limit: 0 }] }, MORNING);
    expect(verdict.each[0]?.admitted).toBe(true);
    // Counted in Redis meanwhile: a limit of one on the other instance finds Alice's minute used.
    const window = `${keyPrefix}:shared:turns:${ALICE.key}`;
    await waitFor(async () => (await a.redis.zcard(window)) === 1);
    const limited = await b.turns.admit({ each: [{ ...ALICE, limit: 1 }] }, MORNING + 1);
    expect(limited.each[0]).toMatchObject({ admitted: false, count: 1 });
  });
});

describe("token budgets shared by instances", () => {
  it("adds up both instances' spending, read from the store once, and a restarted instance finds it", async () => {
    const { a, b, store, url, keyPrefix } = await twoInstances();
    store.usage.record(call(MORNING - 3_600_000, 100, GROUP)); // 09:00, before either instance ran

    expect(await a.tokens.today(GROUP)).toEqual({ day: "2025-05-01", total: 100, session: 100, user: 0 });
    a.spend(50);
    b.spend(20, OTHER_GROUP);
    await Promise.all([a.tokens.today(GROUP), b.tokens.today(GROUP)]); // each instance's add has landed
    expect(await b.tokens.today(GROUP)).toEqual({ day: "2025-05-01", total: 170, session: 150, user: 0 });
    expect(await a.tokens.today(OTHER_GROUP)).toMatchObject({ total: 170, session: 20 });

    const restarted = await instance(url, keyPrefix, store);
    expect(await restarted.tokens.today(GROUP)).toEqual({
      day: "2025-05-01",
      total: 170,
      session: 150,
      user: 0,
    });
    expect(store.reads()).toBe(1);
  });

  it("adds up a user's spending on both instances, in all chats, and a restarted instance finds it", async () => {
    const { a, b, store, url, keyPrefix } = await twoInstances();
    const alice = "onebot:30001";
    store.usage.record({ ...call(MORNING - 3_600_000, 100, GROUP), userKey: alice });

    expect(await a.tokens.today(GROUP, alice)).toMatchObject({ total: 100, user: 100 });
    for (const [limits, sessionId] of [
      [a, GROUP],
      [b, "onebot:10000:private:30001"],
    ] as const) {
      const usage = { ...call(limits.time.now(), 30, sessionId), userKey: alice };
      store.usage.record(usage);
      limits.tokens.add(usage);
    }
    await Promise.all([a.tokens.today(GROUP), b.tokens.today(GROUP)]); // each instance's add has landed
    expect(await b.tokens.today(OTHER_GROUP, alice)).toMatchObject({ total: 160, session: 0, user: 160 });
    expect((await a.tokens.today(GROUP, "onebot:30002")).user).toBe(0);

    const restarted = await instance(url, keyPrefix, store);
    expect((await restarted.tokens.today(GROUP, alice)).user).toBe(160);
    expect(store.reads()).toBe(1);
  });

  it("adds nothing to Redis while no budget is set, and counts those calls once one is", async () => {
    const { a, b, store, keyPrefix } = await twoInstances();
    expect(await a.tokens.today(GROUP)).toMatchObject({ total: 0 });
    a.budget.set = b.budget.set = false;
    a.spend(300);
    b.spend(200, OTHER_GROUP);
    await sleep(100);
    // Nobody reads the tally now: those calls are not sent to Redis (one command each).
    const tally = `${keyPrefix}:shared:spend:day:${Date.UTC(2025, 3, 30, 16)}`; // 1 May 00:00 in Shanghai
    expect(await a.redis.hget(tally, "all")).toBe("0");

    // A budget again: today's tally is read from the store again, with the calls made meanwhile.
    a.budget.set = b.budget.set = true;
    expect(await a.tokens.today(GROUP)).toEqual({ day: "2025-05-01", total: 500, session: 300, user: 0 });
    expect(await b.tokens.today(OTHER_GROUP)).toMatchObject({ total: 500, session: 200 });
    a.spend(5);
    await a.tokens.today(GROUP);
    expect(await b.tokens.today(GROUP)).toMatchObject({ total: 505, session: 305 });
    // Each instance that left calls out reads the store again once.
    expect(store.reads()).toBe(3);
  });

  it("starts a new tally at midnight in the chat's time zone", async () => {
    const { a, b, store } = await twoInstances();
    a.spend(500);
    expect(await a.tokens.today(GROUP)).toMatchObject({ total: 500 });
    // 00:00 on 2 May in Shanghai.
    a.time.advance(14 * 3_600_000);
    b.time.advance(14 * 3_600_000);
    b.spend(30);
    expect(await a.tokens.today(GROUP)).toEqual({ day: "2025-05-02", total: 30, session: 30, user: 0 });
    expect(store.reads()).toBe(2);
  });
});

describe("money spent, shared by instances", () => {
  it("adds up both instances' costs for the day and the month (from the 1st), read from the store once each", async () => {
    const { a, b, store, url, keyPrefix } = await twoInstances();
    store.usage.record({ ...call(MORNING - 86_400_000, 10, GROUP), cost: 0.5 }); // yesterday, 30 April
    store.usage.record({ ...call(MORNING - 3_600_000, 10, GROUP), cost: 0.25 });
    expect(await a.spending.day.spent(GROUP)).toMatchObject({
      period: "2025-05-01",
      session: { cost: 0.25 },
    });
    expect(await a.spending.month.spent(GROUP)).toMatchObject({ period: "2025-05", session: { cost: 0.25 } });
    a.spend(10, GROUP, 0.125);
    b.spend(10, OTHER_GROUP, 1);
    await Promise.all([a.spending.day.spent(GROUP), b.spending.month.spent(GROUP)]); // the adds have landed
    expect(await b.spending.day.spent(GROUP)).toMatchObject({
      total: { tokens: 30, cost: 1.375 },
      session: { tokens: 20, cost: 0.375 },
    });
    expect(await b.spending.month.spent(OTHER_GROUP)).toMatchObject({
      total: { tokens: 30, cost: 1.375 },
      session: { cost: 1 },
    });
    const restarted = await instance(url, keyPrefix, store);
    expect(await restarted.spending.month.spent(GROUP)).toMatchObject({
      session: { tokens: 20, cost: 0.375 },
    });
    expect(store.reads()).toBe(2);
  });
});

describe("shared limits while Redis is down", () => {
  let server: RedisServer;

  it("count on the instance alone, with one warning, and in Redis again once it is back", async () => {
    server = await startRedisServer();
    cleanups.push(() => server.stop());
    const store = await sharedStore();
    const one = await instance(server.url, "t", store);
    const limit: WindowLimit = { ...ALICE, limit: 2 };
    const admitted = async (now: number) => (await one.turns.admit({ each: [limit] }, now)).each[0]?.admitted;
    expect(await admitted(MORNING)).toBe(true);
    one.spend(40);
    expect(await one.tokens.today(GROUP)).toMatchObject({ total: 40 });

    await server.stop();
    // The turn counted in Redis before it went down still counts here: one more, then no.
    const started = Date.now();
    expect(await admitted(MORNING + 1)).toBe(true);
    expect(await admitted(MORNING + 2)).toBe(false);
    one.spend(2);
    // Today's spending from the store, then what this instance spends.
    expect(await one.tokens.today(GROUP)).toMatchObject({ total: 42 });
    one.spend(3);
    expect(await one.tokens.today(GROUP)).toMatchObject({ total: 45 });
    expect(Date.now() - started).toBeLessThan(1_000);
    const warnings = one.log.lines.filter(
      (line) => line.level === LOG_LEVEL.warn && line.msg.startsWith("shared limits"),
    );
    expect(warnings).toHaveLength(1);

    server = await startRedisServer({ port: server.port });
    await waitFor(async () => (await admitted(MORNING + 3)) === true, 10_000);
    expect(one.log.lines.some((line) => line.msg === "shared limits: counting in Redis again")).toBe(true);
  });
});
