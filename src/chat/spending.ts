import type { ZonedClock } from "../context/clock-text.ts";
import { groupOfSession } from "../message/session-id.ts";
import type { SessionSpend, Spend, UsageQuery, UsageRecord, UserSpend } from "../store/types.ts";
import type { Clock } from "./clock.ts";

/** Zone offsets change only on the quarter hour (see src/context/clock-text.ts). */
const QUARTER_HOUR_MS = 15 * 60_000;

/** The spans budgets are counted over, both in chat.timezone: a day, or a calendar month. */
export type BudgetPeriod = "day" | "month";

/** What was spent in the current period, in all chats, in one and by one user's turns. */
export interface SpentInPeriod {
  /** The period's name in the clock's zone: `YYYY-MM-DD` for a day, `YYYY-MM` for a month. */
  period: string;
  total: Spend;
  session: Spend;
  /** The turns of the user asked about (nothing when none was). */
  user: Spend;
}

/** What a tally needs of an LLM call's usage record. */
export type UsageOfCall = Pick<
  UsageRecord,
  "time" | "sessionId" | "userKey" | "promptTokens" | "completionTokens" | "cost"
>;

/** Where a period's spending is read from: the usage store. */
export interface SpendStore {
  spendBySession(query: UsageQuery): Promise<SessionSpend[]>;
  spendByUser(query: UsageQuery): Promise<UserSpend[]>;
}

/** One period's spending, as the budgets check it before every turn and model call. */
export interface SpendingTally {
  /** Counts one LLM call (called for every usage record, as it is stored). */
  add(usage: UsageOfCall): void;
  /** This period's spending in all chats, in `sessionId`, and of `userKey`'s turns when given. */
  spent(sessionId: string, userKey?: string): Promise<SpentInPeriod>;
}

/** The tallies the budgets read: today's and this month's. */
export type SpendingTallies = Record<BudgetPeriod, SpendingTally>;

/** A period's spending so far: in all, per chat and per user. */
export interface Spending {
  total: Spend;
  bySession: Map<string, Spend>;
  byUser: Map<string, Spend>;
}

interface Tally extends Spending {
  clock: ZonedClock;
  period: string;
}

const NOTHING: Spend = { tokens: 0, cost: 0 };

/**
 * A period's spending, kept in memory so checking a budget before every turn costs no query.
 * It is read from the store when first asked and again when the period (or the time zone)
 * changes; in between, every usage record adds to it. A record that arrives while the tally is
 * stale is not added: the store already holds it when the tally is read again, so nothing is
 * counted twice (a store that answers later than SQLite may miss the few calls that end during
 * that read).
 */
export class PeriodSpendingTally implements SpendingTally {
  private tally: Tally | undefined;

  constructor(
    private readonly period: BudgetPeriod,
    private readonly store: SpendStore,
    private readonly clock: () => ZonedClock,
    private readonly time: Pick<Clock, "now">,
  ) {}

  add(usage: UsageOfCall): void {
    const tally = this.tally;
    if (
      !tally ||
      tally.clock !== this.clock() ||
      periodName(this.period, tally.clock, usage.time) !== tally.period
    )
      return;
    const spend = spendOfCall(usage);
    addInto(tally.total, spend);
    if (usage.sessionId !== undefined) addTo(tally.bySession, usage.sessionId, spend);
    if (usage.userKey !== undefined) addTo(tally.byUser, usage.userKey, spend);
  }

  /** This period's spending; reads the store only on the first call of a period. */
  async spent(sessionId: string, userKey?: string): Promise<SpentInPeriod> {
    const tally = await this.current();
    return {
      period: tally.period,
      total: { ...tally.total },
      session: { ...(tally.bySession.get(sessionId) ?? NOTHING) },
      user: { ...((userKey !== undefined && tally.byUser.get(userKey)) || NOTHING) },
    };
  }

  private async current(): Promise<Tally> {
    const clock = this.clock();
    const now = this.time.now();
    const period = periodName(this.period, clock, now);
    if (this.tally?.clock === clock && this.tally.period === period) return this.tally;
    const since = startOfPeriod(this.period, clock, now);
    this.tally = { clock, period, ...(await spentSince(this.store, since)) };
    return this.tally;
  }
}

/** What one call spent. */
export function spendOfCall(usage: UsageOfCall): Spend {
  return { tokens: usage.promptTokens + usage.completionTokens, cost: usage.cost ?? 0 };
}

/** What the store holds since `sinceMs`, in all chats, per chat and per user. */
export async function spentSince(store: SpendStore, sinceMs: number): Promise<Spending> {
  const [sessions, users] = await Promise.all([
    store.spendBySession({ sinceMs }),
    store.spendByUser({ sinceMs }),
  ]);
  const bySession = new Map<string, Spend>();
  const total = { ...NOTHING };
  for (const row of sessions) {
    addInto(total, row);
    if (row.sessionId !== null) bySession.set(row.sessionId, { tokens: row.tokens, cost: row.cost });
  }
  const byUser = new Map(users.map((row) => [row.userKey, { tokens: row.tokens, cost: row.cost }]));
  return { total, bySession, byUser };
}

/** The group chats with LLM calls this month in the clock's zone (the longest budget period), by session id. */
export async function groupsSpendingThisMonth(
  store: SpendStore,
  clock: ZonedClock,
  now: number,
): Promise<string[]> {
  const rows = await store.spendBySession({ sinceMs: startOfPeriod("month", clock, now) });
  return rows.flatMap((row) =>
    row.sessionId !== null && groupOfSession(row.sessionId) !== undefined ? [row.sessionId] : [],
  );
}

function addTo(spends: Map<string, Spend>, key: string, spend: Spend): void {
  const sum = spends.get(key);
  if (sum) addInto(sum, spend);
  else spends.set(key, { ...spend });
}

function addInto(sum: Spend, spend: Spend): void {
  sum.tokens += spend.tokens;
  sum.cost += spend.cost;
}

/** The name of the period `time` falls in, in the clock's zone. */
export function periodName(period: BudgetPeriod, clock: ZonedClock, time: number): string {
  const date = clock.date(time);
  return period === "day" ? date : date.slice(0, 7);
}

/** When the period of `now` began in the clock's zone: its day's midnight, or the 1st's. */
export function startOfPeriod(period: BudgetPeriod, clock: ZonedClock, now: number): number {
  let start = startOfDay(clock, now);
  if (period === "month") {
    // At most 30 steps back, a day at a time: days differ in length where clocks shift.
    while (!clock.date(start).endsWith("-01")) start = startOfDay(clock, start - 1);
  }
  return start;
}

/**
 * When the day of `now` began in the clock's zone: `now` minus the wall time since midnight,
 * moved by quarter hours on the days a zone shifts its clocks (when wall time and elapsed
 * time differ by the shift).
 */
export function startOfDay(clock: ZonedClock, now: number): number {
  const today = clock.date(now);
  const [hours, minutes, seconds] = clock.time(now).split(":").map(Number) as [number, number, number];
  let start = now - (now % 1000) - ((hours * 60 + minutes) * 60 + seconds) * 1000;
  while (clock.date(start) !== today) start += QUARTER_HOUR_MS;
  while (clock.date(start - 1) === today) start -= QUARTER_HOUR_MS;
  return start;
}
