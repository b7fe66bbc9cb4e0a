import type { Logger } from "../log/logger.ts";
import type { ChatMessage } from "../message/inbound.ts";

/**
 * Background passes over chats, one at a time: every `every()` messages a chat is noticed with,
 * the chat waits for a pass; passes run in turn, never two at once, each given the chat's
 * session id and an abort signal that `stop()` fires. A failed pass is reported with `failed`.
 */
class PassQueue {
  /** Messages noticed per chat since its last pass was queued. */
  private readonly counts = new Map<string, number>();
  private readonly waiting = new Set<string>();
  private running: Promise<void> | undefined;
  private readonly stopping = new AbortController();

  constructor(
    private readonly pass: (sessionId: string, signal: AbortSignal) => Promise<void>,
    private readonly failed: (error: unknown, sessionId: string) => void,
  ) {}

  /** The signal a pass is aborted with on `stop()`. */
  get signal(): AbortSignal {
    return this.stopping.signal;
  }

  /** One message more in the chat; queues a pass once `every` have been noticed there. */
  noticed(sessionId: string, every: number): void {
    if (this.stopping.signal.aborted) return;
    const count = (this.counts.get(sessionId) ?? 0) + 1;
    if (count < every) {
      this.counts.set(sessionId, count);
      return;
    }
    this.counts.delete(sessionId);
    this.waiting.add(sessionId);
    this.next();
  }

  /** Stops: a pass in flight is aborted and awaited. */
  async stop(): Promise<void> {
    this.stopping.abort();
    this.waiting.clear();
    await this.running;
  }

  /** Settles once no pass is running or waiting (tests and benches). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private next(): void {
    if (this.running || this.stopping.signal.aborted) return;
    const sessionId = this.waiting.values().next().value;
    if (sessionId === undefined) return;
    this.waiting.delete(sessionId);
    this.running = this.pass(sessionId, this.stopping.signal)
      .catch((error: unknown) => this.failed(error, sessionId))
      .finally(() => {
        this.running = undefined;
        this.next();
      });
  }
}

/**
 * A learner that reads chats in the background: each message a member sent counts towards its
 * chat's next pass, which runs once `passEvery` such messages have been noticed there, one pass
 * at a time across chats. A failed pass is one warning, `failure`, and the next one runs.
 */
export abstract class BackgroundLearner {
  private readonly passes: PassQueue;

  constructor(logger: Logger, failure: string) {
    this.passes = new PassQueue(
      (sessionId, signal) => this.pass(sessionId, signal),
      (error, sessionId) => logger.warn({ err: error, sessionId }, failure),
    );
  }

  /** A message a member sent in an allowed chat (not a command): counts towards the next pass. */
  noticed(message: ChatMessage): void {
    if (message.fromSelf) return;
    const every = this.passEvery(message);
    if (every !== undefined) this.passes.noticed(message.sessionId, every);
  }

  /** Stops learning: a pass in flight is aborted and awaited. */
  stop(): Promise<void> {
    return this.passes.stop();
  }

  /** Settles once no pass is running or waiting (tests and benches). */
  idle(): Promise<void> {
    return this.passes.idle();
  }

  /** Every how many noticed messages the chat of `message` gets a pass; undefined: it does not count now. */
  protected abstract passEvery(message: ChatMessage): number | undefined;

  /** Reads one chat; `stopping` fires on `stop()`. */
  protected abstract pass(sessionId: string, stopping: AbortSignal): Promise<void>;
}
