import type { ZonedClock } from "../context/clock-text.ts";
import type { SessionTokens, UsageQuery, UsageRecord } from "../store/types.ts";
import type { Clock } from "./clock.ts";

/** Zone offsets change only on the quarter hour (see src/context/clock-text.ts). */
const QUARTER_HOUR_MS = 15 * 60_000;

/** Tokens spent today, in all chats and in one. */
export interface TokensToday {
  /** `YYYY-MM-DD` in the clock's zone. */
  day: string;
  total: number;
  session: number;
}

/** What a tally needs of an LLM call's usage record. */
export type UsageOfCall = Pick<UsageRecord, "time" | "sessionId" | "promptTokens" | "completionTokens">;

/** Where today's spending is read from: the usage store. */
export interface TokenStore {
  tokensBySession(query: UsageQuery): Promise<SessionTokens[]>;
}

/** Today's token spending, as the budgets check it before every turn. */
export interface TokenTally {
  /** Counts one LLM call (called for every usage record, as it is stored). */
  add(usage: UsageOfCall): void;
  today(sessionId: string): Promise<TokensToday>;
}

interface Tally {
  clock: ZonedClock;
  day: string;
  total: number;
  bySession: Map<string, number>;
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
    if (usage.sessionId !== undefined) {
      tally.bySession.set(usage.sessionId, (tally.bySession.get(usage.sessionId) ?? 0) + tokens);
    }
  }

  /** Today's tokens; reads the store only on the first call of a day. */
  async today(sessionId: string): Promise<TokensToday> {
    const tally = await this.current();
    return { day: tally.day, total: tally.total, session: tally.bySession.get(sessionId) ?? 0 };
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

/** Tokens the store holds since `sinceMs`, in all chats and per chat. */
export async function spentSince(
  store: TokenStore,
  sinceMs: number,
): Promise<{ total: number; bySession: Map<string, number> }> {
  const bySession = new Map<string, number>();
  let total = 0;
  for (const row of await store.tokensBySession({ sinceMs })) {
    total += row.tokens;
    if (row.sessionId !== null) bySession.set(row.sessionId, row.tokens);
  }
  return { total, bySession };
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
