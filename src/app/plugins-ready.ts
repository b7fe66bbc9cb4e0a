import type { TurnRequest } from "../chat/session-runner.ts";
import type { StageStep } from "../chat/stage-path.ts";
import type { Logger } from "../log/logger.ts";
import type { Monitor } from "../monitor/monitor.ts";

/** How long a turn waits for plugins still in their first activation before it goes on without them. */
export const PLUGINS_READY_WAIT_MS = 5_000;

export interface PluginsReadyParts {
  /** The plugins whose activation is under way (their ids), named when a turn stops waiting for them. */
  activating: () => string[];
  monitor: Monitor;
  logger: Logger;
  waitMs?: number;
}

/**
 * The "plugins" turn gate. Plugins load in the background after start-up, so a turn can start
 * before a stdio plugin has declared its tools and guards; such a turn waits until every plugin
 * found at start-up has had its first activation attempt, so it neither lacks their tools nor
 * runs a tool their guards would stop. The wait is bounded: past it the turn goes on with what
 * is loaded, and the timeline and the log say which plugins were still activating.
 */
export class PluginsReady {
  /** Undefined until start-up begins the plugins' activation and again once it is over. */
  #pending: Promise<void> | undefined;
  readonly #waitMs: number;

  constructor(private readonly parts: PluginsReadyParts) {
    this.#waitMs = parts.waitMs ?? PLUGINS_READY_WAIT_MS;
  }

  /** Start-up's activation of the plugins: settles, never rejecting, once every first attempt is over. */
  follow(activated: Promise<void>): void {
    const pending = activated.then(() => {
      if (this.#pending === pending) this.#pending = undefined;
    });
    this.#pending = pending;
  }

  gate(request: TurnRequest): StageStep<TurnRequest> | Promise<StageStep<TurnRequest>> {
    const pending = this.#pending;
    if (pending === undefined) return { go: request };
    const started = Date.now();
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(true), this.#waitMs);
    });
    return Promise.race([pending.then(() => false), timedOut]).then((late) => {
      clearTimeout(timer);
      if (late) this.#goingOnWithout(request, Date.now() - started);
      return { go: request };
    });
  }

  #goingOnWithout(request: TurnRequest, waitedMs: number): void {
    const { sessionId } = request.batch;
    const activating = this.parts.activating();
    this.parts.monitor.emit({ type: "plugins.not_ready", sessionId, data: { waitedMs, activating } });
    this.parts.logger.warn(
      { sessionId, waitedMs, activating },
      "plugins still activating: the turn goes on without their tools and guards",
    );
  }
}
