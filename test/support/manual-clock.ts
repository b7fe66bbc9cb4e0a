/**
 * A Clock that only moves when told to, for batching tests:
 *
 *   const clock = new ManualClock();
 *   const batcher = new RealtimeBatcher(settings, clock, onBatch);
 *   clock.advance(799); // nothing yet
 *   clock.advance(1);   // the quiet timer fires
 */
import type { Clock, Timer } from "../../src/chat/clock.ts";

interface Scheduled {
  due: number;
  order: number;
  callback: () => void;
}

export class ManualClock implements Clock {
  #now: number;
  #order = 0;
  #scheduled = new Set<Scheduled>();

  constructor(start = 1_700_000_000_000) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  setTimer(callback: () => void, ms: number): Timer {
    const entry: Scheduled = { due: this.#now + Math.max(0, ms), order: this.#order++, callback };
    this.#scheduled.add(entry);
    return { cancel: () => this.#scheduled.delete(entry) };
  }

  /** Timers waiting to fire. */
  get pendingTimers(): number {
    return this.#scheduled.size;
  }

  /** Moves time forward by `ms`, firing every timer that falls due, in time order. */
  advance(ms: number): void {
    const end = this.#now + ms;
    for (;;) {
      const next = [...this.#scheduled]
        .filter((entry) => entry.due <= end)
        .sort((a, b) => a.due - b.due || a.order - b.order)[0];
      if (!next) break;
      this.#scheduled.delete(next);
      this.#now = next.due;
      next.callback();
    }
    this.#now = end;
  }
}
