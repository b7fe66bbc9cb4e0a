import type { Logger } from "../log/logger.ts";
import { errorText } from "./sqlite/storage-errors.ts";

/** What a batch writer is given, whatever the database (each adds how it writes and its tick). */
export interface SpoolOptions<T> {
  /** Names the queue (the table) in log lines, errors and the quarantine. */
  name: string;
  logger: Logger;
  /**
   * Instead, gathers writes for this long before handing them to the tick: for bulky,
   * non-critical records (monitor events) that need not be stored at once.
   */
  delayMs?: number;
  /** Rows that may go first when the spool is full (messages that triggered nothing). */
  expendable?: (item: T) => boolean;
}

/** The part of a write tick the spool uses. */
export interface SpoolTick {
  readonly spoolLimit: number;
  /** Counts rows dropped because the spool was full. */
  dropped(count: number): void;
}

/**
 * A batch writer's queue, whatever the database: rows wait here until their commit succeeded,
 * so while the database cannot be written it is the spool, bounded by the tick's spool limit.
 * The writers differ only in how they write a batch (synchronous SQLite, asynchronous pg).
 */
export class WriteSpool<T> {
  /** Rows not yet committed, oldest first. */
  readonly items: T[] = [];
  readonly #options: SpoolOptions<T>;
  readonly #tick: SpoolTick;
  /** Hands the writer to the tick for its next commit. */
  readonly #schedule: () => void;
  #delay: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(options: SpoolOptions<T>, tick: SpoolTick, schedule: () => void) {
    this.#options = options;
    this.#tick = tick;
    this.#schedule = schedule;
  }

  /** Whether more rows are queued than the spool may hold. */
  get full(): boolean {
    return this.items.length > this.#tick.spoolLimit;
  }

  /** Queues a row (`overflow` runs when that made the spool full) and schedules its commit. */
  push(item: T, overflow: () => void): void {
    if (this.#closed) throw new Error(`${this.#options.name} store is closed`);
    this.items.push(item);
    if (this.full) overflow();
    const { delayMs } = this.#options;
    if (delayMs === undefined) this.#schedule();
    else
      this.#delay ??= setTimeout(() => {
        this.#delay = undefined;
        this.#schedule();
      }, delayMs);
  }

  /** Cancels a delayed schedule: the writer is about to commit now. */
  undelay(): void {
    if (this.#delay !== undefined) clearTimeout(this.#delay);
    this.#delay = undefined;
  }

  /** Refuses further pushes; false when it already did. */
  close(): boolean {
    if (this.#closed) return false;
    this.#closed = true;
    return true;
  }

  /**
   * Drops the oldest expendable row (else the oldest) from `from` on: the rows before it are
   * held by a commit in flight.
   */
  dropOne(from = 0): void {
    const { expendable } = this.#options;
    const found = expendable ? this.items.findIndex((item, index) => index >= from && expendable(item)) : -1;
    const index = found >= 0 ? found : from;
    if (index >= this.items.length) return;
    this.items.splice(index, 1);
    this.#tick.dropped(1);
  }

  /** Logs a row that could be neither stored nor quarantined. */
  lost(rowError: unknown, error: unknown): void {
    this.#options.logger.error(
      { err: error, rowError: errorText(rowError) },
      `lost a ${this.#options.name} row: it could not be stored nor quarantined`,
    );
  }
}
