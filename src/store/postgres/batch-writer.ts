import type { Logger } from "../../log/logger.ts";
import { errorText } from "../sqlite/storage-errors.ts";
import type { PgQuery } from "./database.ts";
import { inSavepoint } from "./savepoint.ts";
import { isPgUnavailable } from "./storage-errors.ts";
import type { PgTickWriter, PgWriteTick } from "./write-tick.ts";

export interface PgBatchWriterOptions<T> {
  /** Names the queue (the table) in log lines, errors and the quarantine. */
  name: string;
  /** Writes rows inside the tick's transaction (multi-row statements: one round trip for many rows). */
  writeBatch: (tx: PgQuery, rows: readonly T[]) => Promise<void>;
  logger: Logger;
  /** Commits this queue in one transaction per event-loop turn with the database's other stores. */
  tick: PgWriteTick;
  /**
   * Instead, gathers writes for this long before handing them to the tick: for bulky,
   * non-critical records (monitor events) that need not be stored at once.
   */
  delayMs?: number;
  /** Rows that may go first when the spool is full (messages that triggered nothing). */
  expendable?: (item: T) => boolean;
}

/**
 * Queues items and writes them all in one batch per event-loop turn, never blocking the
 * caller. Rows stay queued until their commit succeeded: while the database cannot be written
 * the queue is the spool. Rows pushed while a commit is in flight wait for the next one.
 */
export class PgBatchWriter<T> implements PgTickWriter {
  readonly #options: PgBatchWriterOptions<T>;
  #queue: T[] = [];
  /** How many rows at the head of the queue the transaction in flight holds. */
  #writing = 0;
  #delay: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(options: PgBatchWriterOptions<T>) {
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
    // While writes succeed, a burst larger than the spool simply waits for the next commit.
    if (this.#queue.length > tick.spoolLimit && tick.status().state === "degraded") this.#dropOne();
    if (delayMs === undefined) tick.schedule(this);
    else
      this.#delay ??= setTimeout(() => {
        this.#delay = undefined;
        tick.schedule(this);
      }, delayMs);
  }

  /**
   * Commits everything queued (after the commit in flight); resolves once it is, or at once
   * while the database cannot be written (then it stays spooled). Never rejects.
   */
  async flush(): Promise<void> {
    if (this.#delay !== undefined) clearTimeout(this.#delay);
    this.#delay = undefined;
    // Every row of this queue is committed: a read need not wait for other stores' commits.
    if (this.#queue.length === 0) return;
    this.#options.tick.schedule(this);
    await this.#options.tick.run();
  }

  /** Writes what is queued and refuses further pushes. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.flush();
  }

  async writeQueued(tx: PgQuery, isolated: boolean): Promise<void> {
    const batch = this.#queue.slice();
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
    if (committed) this.#queue.splice(0, this.#writing);
    this.#writing = 0;
    // The database cannot be written: what is queued is now the spool, and bounded.
    if (!committed) while (this.#queue.length > this.#options.tick.spoolLimit) this.#dropOne();
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
      this.#options.logger.error(
        { err: error, rowError: errorText(rowError) },
        `lost a ${this.#options.name} row: it could not be stored nor quarantined`,
      );
    }
  }

  /** Drops the oldest expendable row (else the oldest) that no commit in flight holds. */
  #dropOne(): void {
    const { expendable } = this.#options;
    const found = expendable
      ? this.#queue.findIndex((item, index) => index >= this.#writing && expendable(item))
      : -1;
    const index = found >= 0 ? found : this.#writing;
    if (index >= this.#queue.length) return;
    this.#queue.splice(index, 1);
    this.#options.tick.dropped(1);
  }
}
