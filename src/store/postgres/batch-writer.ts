import { type SpoolOptions, WriteSpool } from "../write-spool.ts";
import type { PgQuery } from "./pg-query.ts";
import { inSavepoint } from "./savepoint.ts";
import { isPgUnavailable } from "./storage-errors.ts";
import type { PgTickWriter, PgWriteTick } from "./write-tick.ts";

export interface PgBatchWriterOptions<T> extends SpoolOptions<T> {
  /** Writes rows inside the tick's transaction (multi-row statements: one round trip for many rows). */
  writeBatch: (tx: PgQuery, rows: readonly T[]) => Promise<void>;
  /** Commits this queue in one transaction per event-loop turn with the database's other stores. */
  tick: PgWriteTick;
  /**
   * Whether `writeBatch` writes these rows with ONE statement (one chunk, nothing else): the
   * tick then commits them without a transaction when they are all it has to commit.
   */
  oneStatement?: (rows: readonly T[]) => boolean;
}

/**
 * Queues items and writes them all in one batch per event-loop turn, never blocking the
 * caller. Rows stay queued until their commit succeeded: while the database cannot be written
 * the queue is the spool. Rows pushed while a commit is in flight wait for the next one.
 */
export class PgBatchWriter<T> implements PgTickWriter {
  readonly #options: PgBatchWriterOptions<T>;
  readonly #spool: WriteSpool<T>;
  /** How many rows at the head of the queue the transaction in flight holds. */
  #writing = 0;

  constructor(options: PgBatchWriterOptions<T>) {
    this.#options = options;
    this.#spool = new WriteSpool(options, options.tick, () => options.tick.schedule(this));
    options.tick.register(this);
  }

  get queued(): number {
    return this.#spool.items.length;
  }

  oneStatement(): boolean {
    return this.#options.oneStatement?.(this.#spool.items) ?? false;
  }

  /** Rows not yet committed, oldest first. */
  pending(): readonly T[] {
    return this.#spool.items;
  }

  push(item: T): void {
    this.#spool.push(item, () => {
      // While writes succeed, a burst larger than the spool simply waits for the next commit.
      if (this.#options.tick.status().state === "degraded") this.#spool.dropOne(this.#writing);
    });
  }

  /**
   * Commits everything queued (after the commit in flight); resolves once it is, or at once
   * while the database cannot be written (then it stays spooled). Never rejects.
   */
  async flush(): Promise<void> {
    this.#spool.undelay();
    // Every row of this queue is committed: a read need not wait for other stores' commits.
    if (this.#spool.items.length === 0) return;
    this.#options.tick.schedule(this);
    await this.#options.tick.run();
  }

  /** Writes what is queued and refuses further pushes. */
  async close(): Promise<void> {
    if (this.#spool.close()) await this.flush();
  }

  async writeQueued(tx: PgQuery, isolated: boolean): Promise<void> {
    const batch = this.#spool.items.slice();
    this.#writing = batch.length;
    if (!isolated) {
      await this.#options.writeBatch(tx, batch);
      return;
    }
    try {
      await inSavepoint(tx, () => this.#options.writeBatch(tx, batch));
    } catch (error) {
      if (isPgUnavailable(error)) throw error;
      // One row the database refuses (or that cannot even be serialised) must not take its
      // neighbours with it: the savepoint undid the batch, so write them one by one.
      for (const item of batch) await this.#writeAlone(tx, item);
    }
  }

  settled(committed: boolean): void {
    if (committed) this.#spool.items.splice(0, this.#writing);
    this.#writing = 0;
    // The database cannot be written: what is queued is now the spool, and bounded.
    if (!committed) while (this.#spool.full) this.#spool.dropOne();
  }

  async #writeAlone(tx: PgQuery, item: T): Promise<void> {
    try {
      await inSavepoint(tx, () => this.#options.writeBatch(tx, [item]));
    } catch (error) {
      if (isPgUnavailable(error)) throw error;
      await this.#quarantine(tx, item, error);
    }
  }

  async #quarantine(tx: PgQuery, item: T, rowError: unknown): Promise<void> {
    try {
      await inSavepoint(tx, () => this.#options.tick.quarantine.keep(tx, this.#options.name, item, rowError));
    } catch (error) {
      if (isPgUnavailable(error)) throw error;
      this.#spool.lost(rowError, error);
    }
  }
}
