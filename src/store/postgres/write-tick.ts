import type { Logger } from "../../log/logger.ts";
import { SpoolHealth } from "../spool-health.ts";
import type { StorageStatus } from "../types.ts";
import type { PgQuery } from "./database.ts";
import type { PgTransactions } from "./migrations.ts";
import { PgQuarantine } from "./quarantine.ts";
import { inSavepoint } from "./savepoint.ts";
import { isPgUnavailable } from "./storage-errors.ts";

/** A queue that the write tick drains. */
export interface PgTickWriter {
  /**
   * Writes the rows queued now inside the tick's transaction, quarantining rows the database
   * refuses. Throws only when the database cannot be written; its rows then stay queued.
   */
  writeQueued(tx: PgQuery): Promise<void>;
  /** The transaction `writeQueued` wrote into ended: forget those rows when it committed. */
  settled(committed: boolean): void;
  /** Rows waiting for a commit. */
  readonly queued: number;
}

export interface PgWriteTickOptions {
  /** Rows each store holds in memory while the database cannot be written; beyond it the oldest go. */
  spoolLimit: number;
}

/**
 * Commits every store's queued writes in ONE transaction per event-loop turn, like the SQLite
 * WriteTick, but asynchronously: while one commit is in flight the next rows queue for the
 * next one. A store forgets its rows only once their commit succeeded.
 *
 * When the database cannot be written (the server is down, restarting or read-only) the rows
 * stay in the stores' queues — the spool — and the tick retries with backoff on a timer.
 */
export class PgWriteTick {
  readonly quarantine: PgQuarantine;
  readonly spoolLimit: number;
  readonly #writers = new Set<PgTickWriter>();
  readonly #dirty = new Set<PgTickWriter>();
  readonly #health: SpoolHealth;
  #scheduled: NodeJS.Immediate | undefined;
  #retry: NodeJS.Timeout | undefined;
  /** The commit under way; it never rejects. */
  #inFlight: Promise<void> | undefined;
  #closing = false;

  constructor(
    private readonly db: PgTransactions,
    logger: Logger,
    options: PgWriteTickOptions,
  ) {
    this.spoolLimit = options.spoolLimit;
    this.quarantine = new PgQuarantine(logger);
    this.#health = new SpoolHealth(logger, options.spoolLimit, () => this.#queued());
  }

  /** Counts the writer's rows in the spool reported by `status`. */
  register(writer: PgTickWriter): void {
    this.#writers.add(writer);
  }

  /** The writer has rows: commit them after this event-loop turn (or at the next retry). */
  schedule(writer: PgTickWriter): void {
    this.#dirty.add(writer);
    this.#scheduleRun();
  }

  /**
   * Commits everything scheduled, after the commit in flight. Resolves once it is committed, or
   * at once while degraded (then the retry timer commits it): it never rejects.
   */
  async run(): Promise<void> {
    if (this.#scheduled) clearImmediate(this.#scheduled);
    this.#scheduled = undefined;
    await this.#settledInFlight();
    if (this.#retry !== undefined || this.#dirty.size === 0) return;
    await this.#commit().catch(() => undefined);
  }

  /**
   * Commits `write` now, even while degraded, together with everything scheduled before it;
   * resolves with its result. Rejects when the database cannot be written or refuses `write`
   * (whose writes alone are then undone: the scheduled rows are committed all the same).
   */
  async commitWith<T>(write: (tx: PgQuery) => Promise<T>): Promise<T> {
    if (this.#scheduled) clearImmediate(this.#scheduled);
    this.#scheduled = undefined;
    await this.#settledInFlight();
    let outcome: { value: T } | { error: unknown } | undefined;
    await this.#commit(async (tx) => {
      try {
        outcome = { value: await inSavepoint(tx, () => write(tx)) };
      } catch (error) {
        if (isPgUnavailable(error)) throw error;
        outcome = { error };
      }
    });
    if (outcome === undefined) throw new Error("the commit did not run its write");
    if ("error" in outcome) throw outcome.error;
    return outcome.value;
  }

  status(): StorageStatus {
    return this.#health.status();
  }

  /** A store's spool overflowed and it dropped `count` rows. */
  dropped(count: number): void {
    this.#health.dropped(count);
  }

  /** A last attempt at what is queued; what still cannot be written is reported lost. */
  async close(): Promise<void> {
    this.#closing = true;
    if (this.#scheduled) clearImmediate(this.#scheduled);
    if (this.#retry) clearTimeout(this.#retry);
    this.#scheduled = this.#retry = undefined;
    await this.#settledInFlight();
    if (this.#dirty.size > 0) await this.#commit().catch(() => undefined);
    this.#health.closed();
  }

  #queued(): number {
    let queued = 0;
    for (const writer of this.#writers) queued += writer.queued;
    return queued;
  }

  #scheduleRun(): void {
    if (this.#closing || this.#retry !== undefined || this.#inFlight !== undefined) return;
    this.#scheduled ??= setImmediate(() => void this.run());
  }

  async #settledInFlight(): Promise<void> {
    while (this.#inFlight !== undefined) await this.#inFlight;
  }

  /** One transaction with every scheduled writer's rows (and `extra`); rejects when it failed. */
  #commit(extra?: (tx: PgQuery) => Promise<void>): Promise<void> {
    const writers = [...this.#dirty];
    this.#dirty.clear();
    const attempt = this.#attempt(writers, extra);
    this.#inFlight = attempt.then(
      () => undefined,
      () => undefined,
    );
    void this.#inFlight.then(() => {
      this.#inFlight = undefined;
      // Rows queued while this commit was under way go in the next one.
      if (this.#dirty.size > 0) this.#scheduleRun();
    });
    return attempt;
  }

  async #attempt(writers: PgTickWriter[], extra?: (tx: PgQuery) => Promise<void>): Promise<void> {
    try {
      await this.db.transaction(async (tx) => {
        for (const writer of writers) await writer.writeQueued(tx);
        if (extra) await extra(tx);
      });
    } catch (error) {
      for (const writer of writers) {
        writer.settled(false);
        this.#dirty.add(writer);
      }
      // A lone write that failed leaves no spool behind to retry.
      if (writers.length > 0) this.#degrade(error);
      throw error;
    }
    for (const writer of writers) writer.settled(true);
    if (this.#health.degraded) {
      if (this.#retry) clearTimeout(this.#retry);
      this.#retry = undefined;
      this.#health.succeeded();
    }
  }

  #degrade(error: unknown): void {
    const retryDelayMs = this.#health.failed(error);
    if (this.#closing || this.#retry !== undefined) return;
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      void this.run();
    }, retryDelayMs);
    this.#retry.unref();
  }
}
