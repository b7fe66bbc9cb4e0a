import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import type { Clock } from "../chat/clock.ts";
import {
  countedKeys,
  SlidingWindowCounter,
  type TurnAdmission,
  type TurnVerdict,
  type TurnWindows,
  type WindowLimit,
} from "../chat/rate-limiter.ts";
import {
  type BudgetPeriod,
  PeriodSpendingTally,
  periodName,
  type SpendingTallies,
  type SpendingTally,
  type SpendStore,
  type SpentInPeriod,
  spendOfCall,
  spentSince,
  startOfPeriod,
  type UsageOfCall,
} from "../chat/spending.ts";
import { TURN_WINDOW_MS } from "../chat/turn-limits.ts";
import type { ZonedClock } from "../context/clock-text.ts";
import type { Logger } from "../log/logger.ts";
import type { ClusterKeys } from "./keys.ts";
import { RedisScript } from "./redis-script.ts";

/** Longer than this, and a turn goes on with this instance's own counts. */
const REDIS_TIMEOUT_MS = 2_000;
/** A period's tally outlives the period, for calls recorded after midnight and instances' clocks apart. */
const TALLY_TTL_MS: Record<BudgetPeriod, number> = { day: 2 * 86_400_000, month: 33 * 86_400_000 };

/**
 * The rule of `TurnWindows` on sorted sets of turn times, one per subject. KEYS: the subjects'
 * windows, `whole` first when ARGV[3] is 1. ARGV: now, window ms, 1/0, a member naming this
 * turn, then each key's limit. Answers {admitted 1/0, count, freesAt} per key.
 */
const ADMIT = new RedisScript(`
local now, window, hasWhole = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3] == '1'
local verdicts, eachPassed = {}, 0
for i, key in ipairs(KEYS) do
  redis.call('zremrangebyscore', key, '-inf', now - window)
  local count = redis.call('zcard', key)
  local limit = tonumber(ARGV[4 + i])
  if limit == 0 or count < limit then
    verdicts[i] = {1, count, now}
    if not (hasWhole and i == 1) then eachPassed = eachPassed + 1 end
  else
    local nth = redis.call('zrange', key, count - limit, count - limit, 'WITHSCORES')
    verdicts[i] = {0, count, tonumber(nth[2]) + window}
  end
end
local eachCount = #KEYS - (hasWhole and 1 or 0)
if (not hasWhole or verdicts[1][1] == 1) and (eachCount == 0 or eachPassed > 0) then
  for i, key in ipairs(KEYS) do
    if verdicts[i][1] == 1 then
      redis.call('zadd', key, ARGV[1], ARGV[4])
      redis.call('pexpire', key, window)
    end
  end
end
return verdicts`);

/**
 * Adds a call's spending to a period's tally (hash KEYS[1]): ARGV[1] tokens to `all` and to the
 * fields ARGV[3…] (the chat's, the user's) when given, ARGV[2] cost to the same fields with `$`
 * before their names. Only once the tally was read from the store: until then the store holds
 * the call already and the reading counts it.
 */
const ADD_SPEND = new RedisScript(`
if redis.call('exists', KEYS[1]) == 0 then return 0 end
local cost = tonumber(ARGV[2])
local function add(field)
  redis.call('hincrby', KEYS[1], field, ARGV[1])
  if cost ~= 0 then redis.call('hincrbyfloat', KEYS[1], '$' .. field, ARGV[2]) end
end
add('all')
for i = 3, #ARGV do add(ARGV[i]) end
return 1`);

/** Sets a period's tally (KEYS[1]) from the store unless an instance did already. ARGV: ttl, field, value, … */
const START_TALLY = new RedisScript(`
if redis.call('exists', KEYS[1]) == 1 then return 0 end
for i = 2, #ARGV, 2 do redis.call('hset', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call('pexpire', KEYS[1], ARGV[1])
return 1`);

export interface SharedLimitParts {
  redis: Redis;
  keys: ClusterKeys;
  /** The usage store every instance writes to: where a period's tally starts from. */
  store: SpendStore;
  /** The clock of `chat.timezone`, whose midnight starts a day. */
  clock: () => ZonedClock;
  time: Pick<Clock, "now">;
  /**
   * Whether a token or money budget is set: without one no turn reads the tallies, so calls are
   * not added to them (a Redis command each) and they are read again from the store once one is set.
   */
  budgets: () => boolean;
  logger: Logger;
}

/**
 * Rate limits and budgets counted in Redis, so they hold for the whole cluster and not per
 * instance. Both fall back to this instance's own counts while Redis fails.
 */
export function sharedLimits(parts: SharedLimitParts): { turns: TurnWindows; spending: SpendingTallies } {
  const fallback = new LocalWhileRedisFails(parts.logger);
  return {
    turns: new SharedTurnWindows(parts.redis, parts.keys, fallback),
    spending: {
      day: new SharedSpendingTally("day", parts, fallback),
      month: new SharedSpendingTally("month", parts, fallback),
    },
  };
}

/**
 * Runs a count on Redis, or on this instance's own counters while Redis fails (down, or slower
 * than REDIS_TIMEOUT_MS): limits then hold per instance, and no turn waits on Redis or is
 * dropped for it. An outage is one warning, not one per turn.
 */
class LocalWhileRedisFails {
  #failing = false;

  constructor(private readonly logger: Logger) {}

  async run<T>(shared: () => Promise<T>, local: () => T | Promise<T>): Promise<T> {
    let value: T;
    try {
      value = await withTimeout(shared(), REDIS_TIMEOUT_MS);
    } catch (error) {
      if (!this.#failing) {
        this.logger.warn(
          { err: error },
          "shared limits: Redis failed; counting turns and tokens on this instance alone until it is back",
        );
      }
      this.#failing = true;
      return local();
    }
    if (this.#failing) this.logger.info("shared limits: counting in Redis again");
    this.#failing = false;
    return value;
  }
}

/** Turns per subject in sorted sets of turn times, checked and counted by one script. */
class SharedTurnWindows implements TurnWindows {
  /** This instance's turns, counted as well: what it goes by while Redis fails. */
  readonly #local = new SlidingWindowCounter(TURN_WINDOW_MS);

  constructor(
    private readonly redis: Redis,
    private readonly keys: ClusterKeys,
    private readonly fallback: LocalWhileRedisFails,
  ) {}

  admit(turn: TurnAdmission, now: number): Promise<TurnVerdict> {
    const checks = [...(turn.whole ? [turn.whole] : []), ...turn.each];
    if (checks.length === 0) return Promise.resolve({ each: [] });
    if (checks.every((check) => check.limit === 0)) {
      // No limit is set: nothing can be refused, so the turn does not wait for Redis to count it.
      void this.fallback.run(
        () => this.#count(turn, checks, now),
        () => undefined,
      );
      return this.#local.admit(turn, now);
    }
    return this.fallback.run(
      async () => {
        const verdict = await this.#count(turn, checks, now);
        for (const key of countedKeys(turn, verdict)) this.#local.record(key, now);
        return verdict;
      },
      () => this.#local.admit(turn, now),
    );
  }

  /** Checks and counts the turn in Redis, in one step. */
  async #count(turn: TurnAdmission, checks: WindowLimit[], now: number): Promise<TurnVerdict> {
    const answer = (await ADMIT.run(
      this.redis,
      checks.map((check) => this.keys.shared(`turns:${check.key}`)),
      [now, TURN_WINDOW_MS, turn.whole ? 1 : 0, randomUUID(), ...checks.map((check) => check.limit)],
    )) as Array<[number, number, number]>;
    const verdicts = answer.map(([admitted, count, freesAt]) => ({
      admitted: admitted === 1,
      count,
      freesAt,
    }));
    return turn.whole ? { whole: verdicts[0]!, each: verdicts.slice(1) } : { each: verdicts };
  }
}

/**
 * A period's spending in one hash (`all`, `s:<session id>`, `u:<user key>` for tokens, the same
 * with `$` before them for cost), started from the usage store by the first instance that asks
 * in that period, then added to by every instance as it records its calls. A period is named by
 * the moment it began, so a change of time zone starts a new one.
 */
class SharedSpendingTally implements SpendingTally {
  /** Fed every call too, read only while Redis fails (it starts from the store then). */
  readonly #local: PeriodSpendingTally;
  /** Calls went unadded while no budget was set: the shared tally is started from the store again. */
  #stale = false;

  constructor(
    private readonly period: BudgetPeriod,
    private readonly parts: Omit<SharedLimitParts, "logger">,
    private readonly fallback: LocalWhileRedisFails,
  ) {
    this.#local = new PeriodSpendingTally(period, parts.store, parts.clock, parts.time);
  }

  add(usage: UsageOfCall): void {
    this.#local.add(usage);
    if (!this.parts.budgets()) {
      this.#stale = true;
      return;
    }
    const { tokens, cost } = spendOfCall(usage);
    const key = this.#periodKey(startOfPeriod(this.period, this.parts.clock(), usage.time));
    const fields = [
      ...(usage.sessionId === undefined ? [] : [sessionField(usage.sessionId)]),
      ...(usage.userKey === undefined ? [] : [userField(usage.userKey)]),
    ];
    void this.fallback.run(
      () => ADD_SPEND.run(this.parts.redis, [key], [tokens, cost, ...fields]),
      () => undefined,
    );
  }

  spent(sessionId: string, userKey?: string): Promise<SpentInPeriod> {
    return this.fallback.run(
      () => this.#shared(sessionId, userKey),
      () => this.#local.spent(sessionId, userKey),
    );
  }

  async #shared(sessionId: string, userKey: string | undefined): Promise<SpentInPeriod> {
    const { redis, store, clock, time } = this.parts;
    const zoned = clock();
    const now = time.now();
    const since = startOfPeriod(this.period, zoned, now);
    const key = this.#periodKey(since);
    const tokenFields = [
      "all",
      sessionField(sessionId),
      ...(userKey === undefined ? [] : [userField(userKey)]),
    ];
    const fields = [...tokenFields, ...tokenFields.map((field) => `$${field}`)];
    const read = () => redis.hmget(key, ...fields);
    if (this.#stale) {
      this.#stale = false;
      await redis.del(key);
    }
    let values = await read();
    if (values[0] === null) {
      const spent = await spentSince(store, since);
      const counts = [
        ...spendFields("all", spent.total),
        ...[...spent.bySession].flatMap(([id, spend]) => spendFields(sessionField(id), spend)),
        ...[...spent.byUser].flatMap(([id, spend]) => spendFields(userField(id), spend)),
      ];
      await START_TALLY.run(redis, [key], [TALLY_TTL_MS[this.period], ...counts]);
      values = await read();
    }
    const spendAt = (index: number) =>
      index < tokenFields.length
        ? { tokens: Number(values[index] ?? 0), cost: Number(values[index + tokenFields.length] ?? 0) }
        : { tokens: 0, cost: 0 };
    return {
      period: periodName(this.period, zoned, now),
      total: spendAt(0),
      session: spendAt(1),
      user: spendAt(2),
    };
  }

  #periodKey(startMs: number): string {
    return this.parts.keys.shared(`spend:${this.period}:${startMs}`);
  }
}

/** A subject's tokens and cost as START_TALLY sets them. */
function spendFields(field: string, spend: { tokens: number; cost: number }): Array<string | number> {
  return [field, spend.tokens, `$${field}`, spend.cost];
}

function sessionField(sessionId: string): string {
  return `s:${sessionId}`;
}

function userField(userKey: string): string {
  return `u:${userKey}`;
}

/** `work`, or a rejection once `ms` passed without its answer. */
function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Redis did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
