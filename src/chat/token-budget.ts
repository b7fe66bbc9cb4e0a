import type { ZonedClock } from "../context/clock-text.ts";
import type { SessionTokens, UsageQuery, UsageRecord, UserTokens } from "../store/types.ts";
import type { Clock } from "./clock.ts";

/** Zone offsets change only on the quarter hour (see src/context/clock-text.ts). */
const QUARTER_HOUR_MS = 15 * 60_000;

/** Tokens spent today, in all chats, in one and by one user's turns. */
export interface TokensToday {
  /** `YYYY-MM-DD` in the clock's zone. */
  day: string;
  total: number;
  session: number;
  /** The turns of the user asked about (0 when none was). */
  user: number;
}

/** What a tally needs of an LLM call's usage record. */
export type UsageOfCall = Pick<
  UsageRecord,
  "time" | "sessionId" | "userKey" | "promptTokens" | "completionTokens"
>;

/** Where today's spending is read from: the usage store. */
export interface TokenStore {
  tokensBySession(query: UsageQuery): Promise<SessionTokens[]>;
  tokensByUser(query: UsageQuery): Promise<UserTokens[]>;
}

/** Today's token spending, as the budgets check it before every turn and model call. */
export interface TokenTally {
  /** Counts one LLM call (called for every usage record, as it is stored). */
  add(usage: UsageOfCall): void;
  /** Today's tokens in all chats, in `sessionId`, and of `userKey`'s turns when given. */
  today(sessionId: string, userKey?: string): Promise<TokensToday>;
}

/** Today's spending so far: in all, per chat and per user. */
export interface Spending {
  total: number;
  bySession: Map<string, number>;
  byUser: Map<string, number>;
}

interface Tally extends Spending {
  clock: ZonedClock;
  day: string;
}

/**
 * Today's token spending, kept in memory so checking a budget before every turn costs no
 * query. It is read from the store when first asked and again when the day (or the time
 * zone) changes; in between, every usage record adds to it. A record that arrives while the
 * tally is stale is not added: the store already holds it when the tally is read again, so
 * nothing is counted twice (a store that answers later than SQLite may miss the few calls that
 * end during that read).
 */
export class DailyTokenTally implements TokenTally {
  private tally: Tally | undefined;

  constructor(
    private readonly store: TokenStore,
    private readonly clock: () => ZonedClock,
    private readonly time: Pick<Clock, "now">,
  ) {}

  add(usage: UsageOfCall): void {
    const tally = this.tally;
    if (!tally || tally.clock !== this.clock() || tally.clock.date(usage.time) !== tally.day) return;
    const tokens = usage.promptTokens + usage.completionTokens;
    tally.total += tokens;
    if (usage.sessionId !== undefined) addTo(tally.bySession, usage.sessionId, tokens);
    if (usage.userKey !== undefined) addTo(tally.byUser, usage.userKey, tokens);
  }

  /** Today's tokens; reads the store only on the first call of a day. */
  async today(sessionId: string, userKey?: string): Promise<TokensToday> {
    const tally = await this.current();
    return {
      day: tally.day,
      total: tally.total,
      session: tally.bySession.get(sessionId) ?? 0,
      user: userKey === undefined ? 0 : (tally.byUser.get(userKey) ?? 0),
    };
  }

  private async current(): Promise<Tally> {
    const clock = this.clock();
    const now = this.time.now();
    const day = clock.date(now);
    if (this.tally?.clock === clock && this.tally.day === day) return this.tally;
    this.tally = { clock, day, ...(await spentSince(this.store, startOfDay(clock, now))) };
    return this.tally;
  }
}

/** Tokens the store holds since `sinceMs`, in all chats, per chat and per user. */
export async function spentSince(store: TokenStore, sinceMs: number): Promise<Spending> {
  const [sessions, users] = await Promise.all([
    store.tokensBySession({ sinceMs }),
    store.tokensByUser({ sinceMs }),
  ]);
  const bySession = new Map<string, number>();
  let total = 0;
  for (const row of sessions) {
    total += row.tokens;
    if (row.sessionId !== null) bySession.set(row.sessionId, row.tokens);
  }
  const byUser = new Map(users.map((row) => [row.userKey, row.tokens]));
  return { total, bySession, byUser };
}

function addTo(counts: Map<string, number>, key: string, tokens: number): void {
  counts.set(key, (counts.get(key) ?? 0) + tokens);
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
