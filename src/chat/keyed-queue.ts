/**
 * Runs tasks one at a time per key (a session) and concurrently across keys. Tasks for one
 * key run in the order they were pushed; a failing task does not stop the ones after it.
 */
export class KeyedQueue {
  private readonly tails = new Map<string, Promise<void>>();
  private closed = false;

  constructor(private readonly onError: (key: string, error: unknown) => void) {}

  /** Queues `task` for `key`; resolves when it has run. Refused after `close()`. */
  push(key: string, task: () => Promise<void> | void): Promise<void> {
    if (this.closed) return Promise.reject(new Error("queue is closed"));
    const previous = this.tails.get(key) ?? Promise.resolve();
    const run = previous.then(task).catch((error: unknown) => this.onError(key, error));
    this.tails.set(key, run);
    void run.then(() => {
      if (this.tails.get(key) === run) this.tails.delete(key);
    });
    return run;
  }

  /** Whether `key` has queued or running work. */
  has(key: string): boolean {
    return this.tails.has(key);
  }

  /** Keys with queued or running work. */
  get activeKeys(): number {
    return this.tails.size;
  }

  /** Stops accepting work and waits for everything queued, up to `timeoutMs`. */
  async close(timeoutMs: number): Promise<boolean> {
    this.closed = true;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    const drained = Promise.all([...this.tails.values()]).then(() => true as const);
    const result = await Promise.race([drained, timedOut]);
    clearTimeout(timer);
    return result;
  }
}
