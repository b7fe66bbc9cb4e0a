/**
 * Counts events per key in a sliding window: `count` is the number recorded in the last
 * `windowMs`, so a burst at the end of one minute and the start of the next cannot add up to
 * twice the limit (as fixed windows allow). Times are passed in, so callers choose the clock.
 */
export class SlidingWindowCounter {
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
