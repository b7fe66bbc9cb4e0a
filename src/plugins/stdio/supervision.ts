import type { Monitor } from "../../monitor/monitor.ts";
import type { RuntimeLoadRequest } from "../runtime.ts";
import type { ProcessStatus } from "../status-types.ts";

const FIRST_RETRY_DELAY_MS = 1_000;
const MAX_RETRY_DELAY_MS = 30_000;
/**
 * How long a process must stay up after its activation before its failures are forgotten.
 * One that dies sooner continues the series, so a plugin that crashes right after every
 * activation backs off to the longest delay (and reaches `maxRetries`) instead of being
 * restarted at the first delay forever.
 */
export const STABLE_UPTIME_MS = 60_000;

/** Delay before the retry after the n-th failure in a row: 1 s·2^(n-1), at most 30 s. */
export function retryDelayMs(attempt: number): number {
  return Math.min(FIRST_RETRY_DELAY_MS * 2 ** (attempt - 1), MAX_RETRY_DELAY_MS);
}

/** `entry` split on whitespace; no shell is involved. */
export function commandLine(entry: string): string[] {
  return entry.trim().split(/\s+/u);
}

/**
 * The process status of one stdio plugin and its restart policy: failures in a row, the
 * backoff before the next activation, the give-up after `maxRetries`, and forgetting the
 * failures once a process has stayed up long enough.
 */
export class ProcessSupervisor {
  readonly status: ProcessStatus;
  private retryTimer: NodeJS.Timeout | undefined;
  /** Forgets the failures once the running process has stayed up `STABLE_UPTIME_MS`. */
  private uptimeTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly request: RuntimeLoadRequest,
    private readonly monitor: Monitor,
    command: string[],
  ) {
    this.status = {
      state: "starting",
      command,
      restarts: 0,
      failures: 0,
    };
  }

  private get logger() {
    return this.request.logger;
  }

  started(pid: number | undefined): void {
    this.status.pid = pid;
    this.status.startedAt = Date.now();
  }

  /** An activation succeeded: no retry is due, and the failures go once the process proves stable. */
  activated(isCurrent: () => boolean): void {
    this.status.nextRetryAt = undefined;
    clearTimeout(this.uptimeTimer);
    this.uptimeTimer = setTimeout(() => {
      if (!isCurrent() || this.status.failures === 0) return;
      this.status.failures = 0;
      this.request.statusChanged();
    }, STABLE_UPTIME_MS);
    this.uptimeTimer.unref();
  }

  /** The process stopped answering: it no longer counts towards a stable uptime. */
  stopUptimeClock(): void {
    clearTimeout(this.uptimeTimer);
  }

  stop(): void {
    clearTimeout(this.retryTimer);
    clearTimeout(this.uptimeTimer);
  }

  /** Records the status's last error, shown by the console. */
  noteError(text: string): void {
    this.status.lastError = text;
    this.status.lastErrorAt = Date.now();
  }

  /**
   * Records a failure and schedules `retry`, unless retries are off or used up (then the
   * process state is `failed` until the plugin is reloaded or enabled again).
   */
  failed(reason: string, retry: () => void): void {
    const { autoRetry, maxRetries } = this.request.manifest;
    this.status.failures++;
    this.noteError(reason);
    this.status.pid = undefined;
    if (!autoRetry || (maxRetries > 0 && this.status.failures > maxRetries)) {
      this.status.nextRetryAt = undefined;
      this.logger.error(
        autoRetry
          ? `plugin process not restarted: it failed ${this.status.failures} times in a row (maxRetries ${maxRetries})`
          : "plugin process not restarted: autoRetry is off",
      );
      this.setState("failed", reason);
      return;
    }
    const delay = retryDelayMs(this.status.failures);
    this.status.nextRetryAt = Date.now() + delay;
    this.logger.info(
      { delayMs: delay, attempt: this.status.failures },
      `plugin process restarts in ${delay} ms`,
    );
    this.retryTimer = setTimeout(retry, delay);
    this.retryTimer.unref();
    this.setState("errored", reason);
  }

  /** The scheduled retry begins. */
  restarting(): void {
    this.status.restarts++;
    this.status.nextRetryAt = undefined;
    this.setState("restarting");
  }

  setState(state: ProcessStatus["state"], reason?: string): void {
    this.status.state = state;
    this.monitor.emit({
      type: "plugin.process",
      data: {
        plugin: this.request.manifest.id,
        state,
        pid: this.status.pid ?? null,
        restarts: this.status.restarts,
        ...(reason ? { reason } : {}),
      },
    });
    this.request.statusChanged();
  }
}
