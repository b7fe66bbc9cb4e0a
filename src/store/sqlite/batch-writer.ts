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
}

/**
 * Queues items and writes them all in one batch per event-loop turn, so a burst of pushes
 * costs one transaction instead of one per item and never blocks the caller.
 */
export class BatchWriter<T> implements TickWriter {
  readonly #options: BatchWriterOptions<T>;
  #queue: T[] = [];
  #scheduled: NodeJS.Immediate | undefined;
  #closed = false;

  constructor(options: BatchWriterOptions<T>) {
    this.#options = options;
  }

  push(item: T): void {
    if (this.#closed) throw new Error(`${this.#options.name} store is closed`);
    this.#queue.push(item);
    if (this.#options.tick) this.#options.tick.schedule(this);
    else this.#scheduled ??= setImmediate(() => this.writeQueued());
  }

  /** Writes everything queued now. A failed batch is dropped and the error thrown. */
  flush(): void {
    if (this.#scheduled) clearImmediate(this.#scheduled);
    this.#scheduled = undefined;
    if (this.#queue.length === 0) return;
    const batch = this.#queue;
    this.#queue = [];
    this.#options.writeBatch(batch);
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
