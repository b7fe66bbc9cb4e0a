import type { ReconnectConfig } from "./config.ts";

/**
 * Capped exponential backoff with jitter: about minDelay, 2×, 4×, … up to maxDelay, each delay
 * varied by ±25% (within the bounds) so bots restarting together do not reconnect in lockstep.
 */
export class ReconnectBackoff {
  readonly #config: ReconnectConfig;
  #failures = 0;

  constructor(config: ReconnectConfig) {
    this.#config = config;
  }

  nextDelayMs(): number {
    const { minDelayMs, maxDelayMs } = this.#config;
    const base = Math.min(maxDelayMs, minDelayMs * 2 ** this.#failures);
    this.#failures = Math.min(this.#failures + 1, 30);
    const jittered = base * (0.75 + Math.random() * 0.5);
    return Math.round(Math.max(minDelayMs, Math.min(maxDelayMs, jittered)));
  }

  /** After a successful connection the next failure starts again at minDelay. */
  reset(): void {
    this.#failures = 0;
  }
}
