import type { Logger } from "../../log/logger.ts";
import type { TickWriter, WriteTick } from "./write-tick.ts";

export interface BatchWriterOptions<T> {
  /** Names the queue in log lines and errors (`messages`, `llm_usage`). */
  name: string;
  /** Commits one batch; expected to be a single transaction. */
  writeBatch: (items: readonly T[]) => void;
  logger: Logger;
  /** Shares one transaction per event-loop turn with the database's other stores. */
  tick?: WriteTick;
  /**
   * Instead, gathers writes for this long and commits them in a transaction of their own:
   * for bulky, non-critical records (monitor events) that need not be on disk at once.
   */
  delayMs?: number;
}

/**
 * Queues items and writes them all in one batch per event-loop turn, so a burst of pushes
 * costs one transaction instead of one per item and never blocks the caller.
 */
export class BatchWriter<T> implements TickWriter {
  readonly #options: BatchWriterOptions<T>;
  #queue: T[] = [];
  #scheduled: NodeJS.Immediate | NodeJS.Timeout | undefined;
  #closed = false;

  constructor(options: BatchWriterOptions<T>) {
    this.#options = options;
  }

  push(item: T): void {
    if (this.#closed) throw new Error(`${this.#options.name} store is closed`);
    this.#queue.push(item);
    if (this.#options.tick) this.#options.tick.schedule(this);
    else if (this.#options.delayMs !== undefined) {
      this.#scheduled ??= setTimeout(() => this.writeQueued(), this.#options.delayMs);
    } else this.#scheduled ??= setImmediate(() => this.writeQueued());
  }

  /** Writes everything queued now. A failed batch is dropped and the error thrown. */
  flush(): void {
    this.#cancelScheduled();
    if (this.#queue.length === 0) return;
    const batch = this.#queue;
    this.#queue = [];
    this.#options.writeBatch(batch);
  }

  #cancelScheduled(): void {
    if (this.#scheduled === undefined) return;
    if (this.#options.delayMs !== undefined) clearTimeout(this.#scheduled as NodeJS.Timeout);
    else clearImmediate(this.#scheduled as NodeJS.Immediate);
    this.#scheduled = undefined;
  }

  /** Writes what is queued and refuses further pushes. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.flush();
  }

  /** The scheduled write: nobody awaits it, so a failure is logged, never thrown. */
  writeQueued(): void {
    const count = this.#queue.length;
    try {
      this.flush();
    } catch (error) {
      // Nobody awaits a scheduled flush; throwing here would crash the process.
      this.#options.logger.error({ err: error, lost: count }, `failed to write ${this.#options.name} batch`);
    }
  }
}
