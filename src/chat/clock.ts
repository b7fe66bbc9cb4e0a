/**
 * Time as the batching stages see it. Injected so tests can drive windows and digest
 * intervals step by step instead of racing the wall clock.
 */
export interface Timer {
  cancel(): void;
}

export interface Clock {
  /** Unix time in milliseconds. */
  now(): number;
  /** Runs `callback` once after `ms` milliseconds unless cancelled first. */
  setTimer(callback: () => void, ms: number): Timer;
}

/** The process's own clock and timers. Stateless, so one value serves every caller. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(callback, ms) {
    const handle = setTimeout(callback, ms);
    return { cancel: () => clearTimeout(handle) };
  },
};
