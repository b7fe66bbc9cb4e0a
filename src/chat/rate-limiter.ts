/** A subject's limit in one turn: at most `limit` turns in the window (0: no limit, still counted). */
export interface WindowLimit {
  key: string;
  limit: number;
}

/** What the window of one subject said about a turn. */
export interface WindowVerdict {
  admitted: boolean;
  /** Turns already counted in the window. */
  count: number;
  /** When the count falls below the limit (now, when admitted). */
  freesAt: number;
}

/** A turn to admit: `whole` must pass for any of it to; each of `each` passes or not on its own. */
export interface TurnAdmission {
  whole?: WindowLimit;
  each: WindowLimit[];
}

export interface TurnVerdict {
  whole?: WindowVerdict;
  each: WindowVerdict[];
}

/**
 * Turns per subject in a sliding window, checked and counted in one step, so two turns starting
 * together (in this process or in two instances) cannot both pass a check only one of them
 * should. The turn counts, for `whole` and for the subjects of `each` that passed, when `whole`
 * passes and so does one of `each` at least (or `each` is empty): only turns that start count.
 */
export interface TurnWindows {
  admit(turn: TurnAdmission, now: number): Promise<TurnVerdict>;
}

/** The keys a turn counts for, by the rule of `TurnWindows`. */
export function countedKeys(turn: TurnAdmission, verdict: TurnVerdict): string[] {
  if (verdict.whole?.admitted === false) return [];
  const passed = turn.each.filter((_, index) => verdict.each[index]?.admitted);
  if (turn.each.length > 0 && passed.length === 0) return [];
  return [...(turn.whole ? [turn.whole.key] : []), ...passed.map((check) => check.key)];
}

/**
 * Counts events per key in a sliding window: `count` is the number recorded in the last
 * `windowMs`, so a burst at the end of one minute and the start of the next cannot add up to
 * twice the limit (as fixed windows allow). Times are passed in, so callers choose the clock.
 */
export class SlidingWindowCounter implements TurnWindows {
  /** Per key, the times of the events still inside the window, oldest first. */
  private readonly events = new Map<string, number[]>();
  private lastSweep = 0;

  constructor(private readonly windowMs: number) {}

  /** Events recorded for `key` in the window ending at `now`. */
  count(key: string, now: number): number {
    return this.live(key, now).length;
  }

  /** When the count of `key` falls below `limit` (now, if it already is). */
  freesAt(key: string, limit: number, now: number): number {
    const times = this.live(key, now);
    if (times.length < limit) return now;
    return times[times.length - limit]! + this.windowMs;
  }

  async admit(turn: TurnAdmission, now: number): Promise<TurnVerdict> {
    const check = ({ key, limit }: WindowLimit): WindowVerdict => {
      const count = this.count(key, now);
      const admitted = limit === 0 || count < limit;
      return { admitted, count, freesAt: admitted ? now : this.freesAt(key, limit, now) };
    };
    const verdict: TurnVerdict = { each: turn.each.map(check) };
    if (turn.whole) verdict.whole = check(turn.whole);
    for (const key of countedKeys(turn, verdict)) this.record(key, now);
    return verdict;
  }

  record(key: string, now: number): void {
    const times = this.live(key, now);
    times.push(now);
    this.events.set(key, times);
    this.sweep(now);
  }

  private live(key: string, now: number): number[] {
    const times = this.events.get(key);
    if (!times) return [];
    const firstLive = times.findIndex((time) => time > now - this.windowMs);
    if (firstLive === -1) {
      this.events.delete(key);
      return [];
    }
    if (firstLive > 0) times.splice(0, firstLive);
    return times;
  }

  /** Forgets keys nobody used for a whole window, at most once per window, so memory stays bounded. */
  private sweep(now: number): void {
    if (now - this.lastSweep < this.windowMs) return;
    this.lastSweep = now;
    for (const key of [...this.events.keys()]) this.live(key, now);
  }
}
