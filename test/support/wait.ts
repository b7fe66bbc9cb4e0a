/**
 * Polls `condition` until it holds. For state only readable by asking (a database row, an HTTP
 * answer, a file); a bot's turns and other monitor events are waited on with
 * `bot.waitForEvent`, which needs no polling.
 */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 5_000,
  what = "condition",
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what} not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Waits `ms` doing nothing: a quiet period after which a test asserts that nothing more happened. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A promise the test opens when it chooses: a scripted model waits on it to hold a turn mid-way. */
export class Gate {
  #open!: () => void;
  readonly opened = new Promise<void>((resolve) => {
    this.#open = resolve;
  });
  open(): void {
    this.#open();
  }
}
