/** A parsed pino line as the bot writes it (JSON, one object per line). */
export type LogLine = Record<string, unknown> & { msg?: string; level: number };

/** Log lines collected as they are written, with a wait for one that matches. */
export class LogCapture {
  readonly lines: LogLine[] = [];
  readonly #waiters = new Set<() => void>();

  push(line: LogLine): void {
    this.lines.push(line);
    for (const wake of this.#waiters) wake();
  }

  /** Resolves with the first line (already written or future) matching `predicate`. */
  waitFor(predicate: (line: LogLine) => boolean, timeoutMs = 3_000): Promise<LogLine> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = this.lines.find(predicate);
        if (!found) return;
        cleanup();
        resolve(found);
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`no matching log line within ${timeoutMs} ms`));
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
