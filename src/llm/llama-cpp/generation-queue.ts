/**
 * Runs generations one at a time, in the order they were asked for: one model with one
 * context can only make a second request wait for the first. First come, first served is
 * fair between sessions, since each session waits for its answer before it asks again. A
 * request whose signal aborts while it waits leaves the queue at once.
 */
export class GenerationQueue {
  private tail: Promise<void> = Promise.resolve();
  private waitingCount = 0;

  /** Requests queued and not yet started. */
  get waiting(): number {
    return this.waitingCount;
  }

  run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      this.waitingCount++;
      let left = false;
      const leave = () => {
        left = true;
        this.waitingCount--;
        reject(signal?.reason);
      };
      signal?.addEventListener("abort", leave, { once: true });
      // The tail never rejects: the next request starts once this one has settled or left.
      this.tail = this.tail.then(async () => {
        signal?.removeEventListener("abort", leave);
        if (left) return;
        this.waitingCount--;
        try {
          resolve(await task());
        } catch (error) {
          reject(error);
        }
      });
    });
  }
}
