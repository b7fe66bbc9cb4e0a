import type { Logger } from "../../log/logger.ts";
import { SpoolHealth } from "../spool-health.ts";
import type { StorageStatus } from "../types.ts";
import type { PgTransactions } from "./pg-migration.ts";
import type { PgQuery } from "./pg-query.ts";
import { PgQuarantine } from "./quarantine.ts";
import { inSavepoint } from "./savepoint.ts";
import { isPgUnavailable } from "./storage-errors.ts";

/** A queue that the write tick drains. */
export interface PgTickWriter {
  /**
   * Writes the rows queued now inside the tick's transaction, as one plain batch: a row the
   * database refuses fails the transaction. `isolated` (the redo of a transaction that failed
   * so): in a savepoint, then row by row, quarantining the rows the database refuses; it throws
   * only when the database cannot be written. Either way the rows stay queued until `settled`.
   */
  writeQueued(tx: PgQuery, isolated: boolean): Promise<void>;
  /** The transaction `writeQueued` wrote into ended: forget those rows when it committed. */
  settled(committed: boolean): void;
  /** Rows waiting for a commit. */
  readonly queued: number;
  /** Whether `writeQueued` writes the queued rows with one statement (it then needs no transaction alone). */
  oneStatement(): boolean;
}

/** The database as the tick writes it: in transactions (see PgDatabase), or one statement on its own. */
export interface PgWrites extends PgTransactions {
  transaction<T>(fn: (tx: PgQuery) => Promise<T>, options?: { atOnce?: boolean }): Promise<T>;
  alone<T>(fn: (query: PgQuery) => Promise<T>): Promise<T>;
}

/** A write that goes with a tick's commit; `isolated` as for `PgTickWriter.writeQueued`. */
interface TickWrite {
  write(tx: PgQuery, isolated: boolean): Promise<void>;
  /** Whether it is one statement (committed alone, it then needs no transaction). */
  oneStatement: boolean;
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
 *
 * A transaction writes each store's batch plainly, without savepoints (each costs two round
 * trips). Only when the database refuses a row, which is rare, is it rolled back and redone
 * with savepoints, so that the row is set aside alone. A commit of one statement (a lone
 * message, a usage row) runs without BEGIN and COMMIT: one round trip instead of three.
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
    private readonly db: PgWrites,
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
    await this.#afterInFlight(() => {
      if (this.#retry !== undefined || !this.#hasDirtyRows()) return;
      return this.#commit().catch(() => undefined);
    });
  }

  /**
   * Commits `write` now, even while degraded, together with everything scheduled before it;
   * resolves with its result. Rejects when the database cannot be written or refuses `write`
   * (whose writes alone are then undone: the scheduled rows are committed all the same).
   * `write` may run twice, in a transaction that another row failed and in its redo.
   * `oneStatement`: `write` makes one statement; with nothing scheduled it then commits alone,
   * in one round trip.
   */
  async commitWith<T>(
    write: (tx: PgQuery) => Promise<T>,
    options: { oneStatement?: boolean } = {},
  ): Promise<T> {
    if (this.#scheduled) clearImmediate(this.#scheduled);
    this.#scheduled = undefined;
    let outcome: { value: T } | { error: unknown } | undefined;
    await this.#afterInFlight(() =>
      this.#commit({
        oneStatement: options.oneStatement ?? false,
        write: async (tx, isolated) => {
          if (!isolated) {
            outcome = { value: await write(tx) };
            return;
          }
          try {
            outcome = { value: await inSavepoint(tx, () => write(tx)) };
          } catch (error) {
            if (isPgUnavailable(error)) throw error;
            outcome = { error };
          }
        },
      }),
    );
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
    await this.#afterInFlight(() =>
      this.#hasDirtyRows() ? this.#commit().catch(() => undefined) : undefined,
    );
    this.#health.closed();
  }

  #queued(): number {
    let queued = 0;
    for (const writer of this.#writers) queued += writer.queued;
    return queued;
  }

  /** A writer scheduled may have had its rows committed since (by a transaction it joined late). */
  #hasDirtyRows(): boolean {
    for (const writer of this.#dirty) if (writer.queued > 0) return true;
    return false;
  }

  #scheduleRun(): void {
    if (this.#closing || this.#retry !== undefined || this.#inFlight !== undefined) return;
    this.#scheduled ??= setImmediate(() => void this.run());
  }

  /**
   * Waits for the commit in flight, then calls `start` in the same microtask, so that of callers
   * waiting together the first one's commit is in flight before the next one looks. (Starting
   * after awaiting a helper that waits leaves a gap in which every waiter starts its own commit:
   * transactions ran side by side, wrote the same queued rows twice and deadlocked.)
   */
  async #afterInFlight(start: () => Promise<void> | undefined): Promise<void> {
    while (this.#inFlight !== undefined) await this.#inFlight;
    await start();
  }

  /** One transaction with every scheduled writer's rows (and `extra`); rejects when it failed. */
  #commit(extra?: TickWrite): Promise<void> {
    const writers = [...this.#dirty].filter((writer) => writer.queued > 0);
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

  async #attempt(writers: PgTickWriter[], extra?: TickWrite): Promise<void> {
    try {
      await this.#transaction(writers, extra, false).catch((error: unknown) => {
        if (isPgUnavailable(error)) throw error;
        // A row was refused and the transaction rolled back: redo it, setting that row aside.
        return this.#transaction(writers, extra, true);
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

  #transaction(writers: PgTickWriter[], extra: TickWrite | undefined, isolated: boolean): Promise<void> {
    const alone = isolated ? undefined : loneStatement(writers, extra);
    if (alone) return this.db.alone((query) => alone(query, false));
    // Each write one statement, all issued together: the transaction is one round trip.
    const atOnce =
      !isolated && writers.every((writer) => writer.oneStatement()) && (extra?.oneStatement ?? true);
    return this.db.transaction(
      async (tx) => {
        if (isolated) {
          // Savepoints nest: one writer after another.
          for (const writer of writers) await writer.writeQueued(tx, true);
          if (extra) await extra.write(tx, true);
          return;
        }
        // All at once: their statements go out together on the pipelined connection.
        await allSettledOrFirstError([
          ...writers.map((writer) => writer.writeQueued(tx, false)),
          ...(extra ? [extra.write(tx, false)] : []),
        ]);
      },
      { atOnce },
    );
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

/** The write of a commit that is one statement in all (it needs no transaction), if it is. */
function loneStatement(
  writers: readonly PgTickWriter[],
  extra: TickWrite | undefined,
): TickWrite["write"] | undefined {
  const [writer] = writers;
  if (extra === undefined && writers.length === 1 && writer?.oneStatement()) {
    return (query, isolated) => writer.writeQueued(query, isolated);
  }
  if (writers.length === 0 && extra?.oneStatement) return extra.write;
  return undefined;
}

/** "current transaction is aborted": what statements behind the one that failed answer. */
const IN_FAILED_TRANSACTION = "25P02";

/**
 * Waits for every write (none is left running in a transaction about to end), then rejects with
 * the failure that ended the transaction, not with one of the statements refused after it.
 */
async function allSettledOrFirstError(writes: Promise<void>[]): Promise<void> {
  const reasons = (await Promise.allSettled(writes)).flatMap((outcome) =>
    outcome.status === "rejected" ? [outcome.reason as unknown] : [],
  );
  if (reasons.length === 0) return;
  throw reasons.find((reason) => (reason as { code?: unknown }).code !== IN_FAILED_TRANSACTION) ?? reasons[0];
}

/** The storage's status from two ticks' (each with its own spool): degraded while either is. */
export function combinedStatus(first: StorageStatus, second: StorageStatus): StorageStatus {
  const degraded = [first, second].find((status) => status.state === "degraded");
  return {
    state: degraded === undefined ? "ok" : "degraded",
    ...(degraded?.reason !== undefined && { reason: degraded.reason }),
    spooled: first.spooled + second.spooled,
    dropped: first.dropped + second.dropped,
  };
}
