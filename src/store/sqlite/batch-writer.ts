import { type SpoolOptions, WriteSpool } from "../write-spool.ts";
import { isStorageUnavailable } from "./storage-errors.ts";
import type { TickWriter, WriteTick } from "./write-tick.ts";

export interface BatchWriterOptions<T> extends SpoolOptions<T> {
  /** Writes rows; a `db.transaction`, so inside the tick it is a savepoint that fails whole. */
  writeBatch: (items: readonly T[]) => void;
  /** Commits this queue in one transaction per event-loop turn with the database's other stores. */
  tick: WriteTick;
}

/**
 * Queues items and writes them all in one batch per event-loop turn, so a burst of pushes
 * costs one transaction instead of one per item and never blocks the caller. Rows stay queued
 * until their commit succeeded: while the database cannot be written the queue is the spool.
 */
export class BatchWriter<T> implements TickWriter {
  readonly #options: BatchWriterOptions<T>;
  readonly #spool: WriteSpool<T>;
  /** How many rows at the head of the queue the current transaction holds. */
  #written = 0;

  constructor(options: BatchWriterOptions<T>) {
    this.#options = options;
    this.#spool = new WriteSpool(options, options.tick, () => options.tick.schedule(this));
    options.tick.register(this);
  }

  get queued(): number {
    return this.#spool.items.length;
  }

  /** Rows not yet committed, oldest first. */
  pending(): readonly T[] {
    return this.#spool.items;
  }

  push(item: T): void {
    this.#spool.push(item, () => {
      // A burst that large in one turn is written now; only what the database refuses is dropped.
      this.#options.tick.run();
      if (this.#spool.full) this.#spool.dropOne();
    });
  }

  /** Commits everything queued now, unless the database cannot be written (then it stays spooled). */
  flush(): void {
    this.#spool.undelay();
    if (this.#spool.items.length > 0) this.#options.tick.schedule(this);
    this.#options.tick.run();
  }

  /**
   * Commits everything queued now together with `write`, in one transaction; throws when that
   * cannot be committed (the rows are then committed alone, or stay spooled).
   */
  flushWith(write: () => void): void {
    this.#spool.undelay();
    if (this.#spool.items.length > 0) this.#options.tick.schedule(this);
    this.#options.tick.commitWith(write);
  }

  /** Writes what is queued and refuses further pushes. */
  close(): void {
    if (this.#spool.close()) this.flush();
  }

  writeQueued(): void {
    const batch = this.#spool.items;
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
    this.#spool.items.splice(0, this.#written);
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
      this.#spool.lost(rowError, error);
    }
  }
}
