import type { Logger } from "../../src/log/logger.ts";
import { createLogger } from "../../src/log/logger.ts";

/** A parsed pino line as the bot writes it (JSON, one object per line; every line has a message). */
export type LogLine = Record<string, unknown> & { msg: string; level: number };

/** pino's numeric levels, as they appear in `LogLine.level`. */
export const LOG_LEVEL = { debug: 20, info: 30, warn: 40, error: 50 } as const;

/** Things collected as they happen (log lines, monitor events), with a wait for one that matches. */
export class Capture<T> {
  readonly items: T[] = [];
  readonly #waiters = new Set<() => void>();

  push(item: T): void {
    this.items.push(item);
    for (const wake of this.#waiters) wake();
  }

  /** Resolves with the first item (already collected or future) matching `predicate`. */
  waitFor(predicate: (item: T) => boolean, timeoutMs = 5_000, what = "matching item"): Promise<T> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = this.items.find(predicate);
        if (found === undefined) return;
        cleanup();
        resolve(found);
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`no ${what} within ${timeoutMs} ms`));
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        this.#waiters.delete(check);
      };
      this.#waiters.add(check);
      check();
    });
  }
}

/** Log lines collected as they are written, with a wait for one that matches. */
export class LogCapture extends Capture<LogLine> {
  get lines(): LogLine[] {
    return this.items;
  }

  override waitFor(predicate: (line: LogLine) => boolean, timeoutMs = 5_000): Promise<LogLine> {
    return super.waitFor(predicate, timeoutMs, "matching log line");
  }

  /** A real logger (JSON lines, as the bot writes them) whose lines land here. */
  logger(level = "debug"): Logger {
    return createLogger({ level, destination: { write: (line: string) => this.push(JSON.parse(line)) } });
  }
}
