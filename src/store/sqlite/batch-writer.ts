import type { Logger } from "../../log/logger.ts";
import { errorText, isStorageUnavailable } from "./storage-errors.ts";
import type { TickWriter, WriteTick } from "./write-tick.ts";

export interface BatchWriterOptions<T> {
  /** Names the queue (the table) in log lines, errors and the quarantine. */
  name: string;
  /** Writes rows; a `db.transaction`, so inside the tick it is a savepoint that fails whole. */
  writeBatch: (items: readonly T[]) => void;
  logger: Logger;
  /** Commits this queue in one transaction per event-loop turn with the database's other stores. */
  tick: WriteTick;
  /**
   * Instead, gathers writes for this long before handing them to the tick: for bulky,
   * non-critical records (monitor events) that need not be on disk at once.
   */
  delayMs?: number;
  /** Rows that may go first when the spool is full (messages that triggered nothing). */
  expendable?: (item: T) => boolean;
}

/**
 * Queues items and writes them all in one batch per event-loop turn, so a burst of pushes
 * costs one transaction instead of one per item and never blocks the caller. Rows stay queued
 * until their commit succeeded: while the database cannot be written the queue is the spool.
 */
export class BatchWriter<T> implements TickWriter {
  readonly #options: BatchWriterOptions<T>;
  #queue: T[] = [];
  /** How many rows at the head of the queue the current transaction holds. */
  #written = 0;
  #delay: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(options: BatchWriterOptions<T>) {
    this.#options = options;
    options.tick.register(this);
  }

  get queued(): number {
    return this.#queue.length;
  }

  /** Rows not yet committed, oldest first. */
  pending(): readonly T[] {
    return this.#queue;
  }

  push(item: T): void {
    if (this.#closed) throw new Error(`${this.#options.name} store is closed`);
    this.#queue.push(item);
    const { delayMs, tick } = this.#options;
    if (this.#queue.length > tick.spoolLimit) {
      // A burst that large in one turn is written now; only what the database refuses is dropped.
      tick.run();
      if (this.#queue.length > tick.spoolLimit) this.#dropOne();
    }
    if (delayMs === undefined) tick.schedule(this);
    else
      this.#delay ??= setTimeout(() => {
        this.#delay = undefined;
        tick.schedule(this);
      }, delayMs);
  }

  /** Commits everything queued now, unless the database cannot be written (then it stays spooled). */
  flush(): void {
    if (this.#delay !== undefined) clearTimeout(this.#delay);
    this.#delay = undefined;
    if (this.#queue.length > 0) this.#options.tick.schedule(this);
    this.#options.tick.run();
  }

  /** Writes what is queued and refuses further pushes. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.flush();
  }

  writeQueued(): void {
    const batch = this.#queue;
    this.#written = 0;
    try {
      this.#options.writeBatch(batch);
    } catch (error) {
      if (isStorageUnavailable(error)) throw error;
      // One row the database refuses (or that cannot even be serialised) must not take its
      // neighbours with it: the failed savepoint left nothing, so write them one by one.
      for (const item of batch) this.#writeAlone(item);
    }
    this.#written = batch.length;
  }

  committed(): void {
    this.#queue.splice(0, this.#written);
    this.#written = 0;
  }

  #writeAlone(item: T): void {
    try {
      this.#options.writeBatch([item]);
      return;
    } catch (error) {
      if (isStorageUnavailable(error)) throw error;
      this.#quarantine(item, error);
    }
  }

  #quarantine(item: T, rowError: unknown): void {
    try {
      this.#options.tick.quarantine.keep(this.#options.name, item, rowError);
    } catch (error) {
      if (isStorageUnavailable(error)) throw error;
      this.#options.logger.error(
        { err: error, rowError: errorText(rowError) },
        `lost a ${this.#options.name} row: it could not be stored nor quarantined`,
      );
    }
  }

  #dropOne(): void {
    const { expendable } = this.#options;
    const index = expendable ? this.#queue.findIndex(expendable) : -1;
    this.#queue.splice(Math.max(index, 0), 1);
    this.#options.tick.dropped(1);
  }
}
