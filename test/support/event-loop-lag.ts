/**
 * How long this process's event loop was held while something ran: a 10 ms timer notes how late
 * each tick came; the worst lateness is the longest the bot could not answer anything.
 */
export function watchEventLoop(): { stop(): number } {
  let worst = 0;
  let expected = performance.now() + 10;
  const timer = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - expected);
    expected = now + 10;
  }, 10);
  return {
    stop() {
      clearInterval(timer);
      // The tick that would have come now counts too (a loop held until the very end).
      return Math.max(worst, performance.now() - expected);
    },
  };
}

/** The event loop's worst lag while `run` runs, and what it gave. */
export async function lagDuring<T>(run: () => Promise<T>): Promise<{ value: T; lagMs: number }> {
  const watch = watchEventLoop();
  const value = await run();
  return { value, lagMs: Math.round(watch.stop()) };
}

/** Asks `/healthz` every 50 ms until stopped; the slowest answer is how long the event loop was held. */
export function watchResponsiveness(baseUrl: string): { stop(): Promise<number> } {
  let slowest = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      // A bot that stopped answering is as slow as can be.
      const answered = await fetch(`${baseUrl}/healthz`).then(
        (answer) => answer.arrayBuffer().then(() => true),
        () => false,
      );
      slowest = Math.max(slowest, answered ? performance.now() - started : Number.POSITIVE_INFINITY);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return slowest;
    },
  };
}
