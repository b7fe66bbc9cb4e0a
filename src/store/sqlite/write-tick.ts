import type { Database } from "better-sqlite3";
import type { Logger } from "../../log/logger.ts";
import type { StorageStatus } from "../types.ts";
import { Quarantine } from "./quarantine.ts";
import { errorText } from "./storage-errors.ts";

/** A queue that the write tick drains. */
export interface TickWriter {
  /**
   * Writes what it holds inside the tick's transaction, quarantining rows the database refuses.
   * Throws only when the database cannot be written now; its rows then stay queued.
   */
  writeQueued(): void;
  /** The transaction that `writeQueued` wrote into is committed: forget those rows. */
  committed(): void;
  /** Rows waiting for a commit. */
  readonly queued: number;
}

export interface WriteTickOptions {
  /** Rows each store holds in memory while the database cannot be written; beyond it the oldest go. */
  spoolLimit: number;
}

/** First and longest pause between attempts while the database cannot be written. */
const RETRY_MIN_MS = 50;
const RETRY_MAX_MS = 1_000;
/** Dropped rows are reported at most this often, so a flood is one loud line per second. */
const DROP_LOG_INTERVAL_MS = 1_000;
/** Closing may wait this long for a lock: the last chance for what is still spooled. */
const CLOSE_BUSY_TIMEOUT_MS = 2_000;

/**
 * Commits every store's queued writes (messages, usage, turns, monitor events) in ONE
 * transaction per event-loop turn: a replied turn touches four tables, and one commit instead
 * of four is most of what storage costs per turn. Each store's own batch runs inside it as a
 * savepoint, and a store forgets its rows only once the commit succeeded.
 *
 * When the database cannot be written (locked by another process, disk full, read-only) the
 * rows stay in the stores' queues — the spool — and the tick retries with backoff on a timer
 * instead of on every turn, so ingest and `/healthz` never wait on the lock for long.
 */
export class WriteTick {
  readonly quarantine: Quarantine;
  readonly spoolLimit: number;
  readonly #writers = new Set<TickWriter>();
  readonly #dirty = new Set<TickWriter>();
  readonly #commit: (writers: TickWriter[]) => void;
  #scheduled: NodeJS.Immediate | undefined;
  #retry: NodeJS.Timeout | undefined;
  #retryDelayMs = RETRY_MIN_MS;
  /** Why the last commit failed; undefined while writes succeed. */
  #degradedReason: string | undefined;
  #degradedSince = 0;
  #dropped = 0;
  #droppedUnreported = 0;
  #lastDropReport = 0;
  #closing = false;

  constructor(
    private readonly db: Database,
    private readonly logger: Logger,
    options: WriteTickOptions,
  ) {
    this.spoolLimit = options.spoolLimit;
    this.quarantine = new Quarantine(db, logger);
    this.#commit = db.transaction((writers: TickWriter[]) => {
      for (const writer of writers) writer.writeQueued();
    });
  }

  /** Counts the writer's rows in the spool reported by `status`. */
  register(writer: TickWriter): void {
    this.#writers.add(writer);
  }

  /** The writer has rows: commit them at the end of this event-loop turn (or at the next retry). */
  schedule(writer: TickWriter): void {
    this.#dirty.add(writer);
    if (this.#retry === undefined) this.#scheduled ??= setImmediate(() => this.run());
  }

  /** Commits everything scheduled now (before reads); while degraded, the retry timer does. */
  run(): void {
    if (this.#scheduled) clearImmediate(this.#scheduled);
    this.#scheduled = undefined;
    if (this.#retry === undefined) this.#commitDirty();
  }

  status(): StorageStatus {
    // Rows merely waiting for this turn's commit are not spooled.
    if (this.#degradedReason === undefined) return { state: "ok", spooled: 0, dropped: this.#dropped };
    return {
      state: "degraded",
      reason: this.#degradedReason,
      spooled: this.#queued(),
      dropped: this.#dropped,
    };
  }

  #queued(): number {
    let queued = 0;
    for (const writer of this.#writers) queued += writer.queued;
    return queued;
  }

  /** A store's spool overflowed and it dropped `count` rows. */
  dropped(count: number): void {
    this.#dropped += count;
    this.#droppedUnreported += count;
    if (Date.now() - this.#lastDropReport >= DROP_LOG_INTERVAL_MS) this.#reportDrops();
  }

  /** A last attempt, waiting longer for a lock; what still cannot be written is reported lost. */
  close(): void {
    this.#closing = true;
    if (this.#scheduled) clearImmediate(this.#scheduled);
    if (this.#retry) clearTimeout(this.#retry);
    this.#scheduled = this.#retry = undefined;
    if (!this.db.open) return;
    this.db.pragma(`busy_timeout = ${CLOSE_BUSY_TIMEOUT_MS}`);
    this.#commitDirty();
    const lost = this.#queued();
    if (lost > 0) {
      this.logger.error(
        { lost, reason: this.#degradedReason },
        "storage closed with rows it could not write: they are lost",
      );
    }
    if (this.#droppedUnreported > 0) this.#reportDrops();
  }

  #commitDirty(): void {
    if (this.#dirty.size === 0 || !this.db.open) return;
    const writers = [...this.#dirty];
    try {
      this.#commit(writers);
    } catch (error) {
      this.#degrade(error);
      return;
    }
    this.#dirty.clear();
    for (const writer of writers) writer.committed();
    if (this.#degradedReason !== undefined) this.#recover();
  }

  #degrade(error: unknown): void {
    const reason = errorText(error);
    if (this.#degradedReason === undefined) {
      this.#degradedSince = Date.now();
      this.#retryDelayMs = RETRY_MIN_MS;
      this.logger.error(
        { err: error, spooled: this.#queued() },
        "storage degraded: cannot write the database; rows are kept in memory and retried",
      );
    } else {
      this.#retryDelayMs = Math.min(this.#retryDelayMs * 2, RETRY_MAX_MS);
    }
    this.#degradedReason = reason;
    if (this.#closing) return;
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      this.#commitDirty();
    }, this.#retryDelayMs);
    this.#retry.unref();
  }

  #recover(): void {
    this.logger.warn(
      { degradedMs: Date.now() - this.#degradedSince, dropped: this.#dropped },
      "storage recovered: the spooled rows are written",
    );
    this.#degradedReason = undefined;
    if (this.#droppedUnreported > 0) this.#reportDrops();
  }

  #reportDrops(): void {
    this.logger.error(
      { dropped: this.#droppedUnreported, droppedTotal: this.#dropped, spoolLimit: this.spoolLimit },
      `storage spool full: dropped ${this.#droppedUnreported} rows that could not be written (oldest untriggered messages first)`,
    );
    this.#droppedUnreported = 0;
    this.#lastDropReport = Date.now();
  }
}
