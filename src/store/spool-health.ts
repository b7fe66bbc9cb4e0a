import type { Logger } from "../log/logger.ts";
import { errorText } from "./sqlite/storage-errors.ts";
import type { StorageStatus } from "./types.ts";

/** First and longest pause between attempts while the database cannot be written. */
const RETRY_MIN_MS = 50;
const RETRY_MAX_MS = 1_000;
/** Dropped rows are reported at most this often, so a flood is one loud line per second. */
const DROP_LOG_INTERVAL_MS = 1_000;

/**
 * Whether a write tick's commits reach the database, for `/healthz` and the log: one line when
 * writes start failing, one when they recover, and dropped rows at most once a second. Shared
 * by the SQLite and PostgreSQL write ticks, which decide when to commit.
 */
export class SpoolHealth {
  /** Why the last commit failed; undefined while writes succeed. */
  #degradedReason: string | undefined;
  #degradedSince = 0;
  #retryDelayMs = RETRY_MIN_MS;
  #dropped = 0;
  #droppedUnreported = 0;
  #lastDropReport = 0;

  constructor(
    private readonly logger: Logger,
    private readonly spoolLimit: number,
    /** Rows the stores hold, waiting for a commit. */
    private readonly queued: () => number,
  ) {}

  get degraded(): boolean {
    return this.#degradedReason !== undefined;
  }

  status(): StorageStatus {
    // Rows merely waiting for this turn's commit are not spooled.
    if (this.#degradedReason === undefined) return { state: "ok", spooled: 0, dropped: this.#dropped };
    return {
      state: "degraded",
      reason: this.#degradedReason,
      spooled: this.queued(),
      dropped: this.#dropped,
    };
  }

  /** A store's spool overflowed and it dropped `count` rows. */
  dropped(count: number): void {
    this.#dropped += count;
    this.#droppedUnreported += count;
    if (Date.now() - this.#lastDropReport >= DROP_LOG_INTERVAL_MS) this.#reportDrops();
  }

  /** A commit failed: logs the first failure of a run; resolves how long to wait before trying again. */
  failed(error: unknown): number {
    if (this.#degradedReason === undefined) {
      this.#degradedSince = Date.now();
      this.#retryDelayMs = RETRY_MIN_MS;
      this.logger.error(
        { err: error, spooled: this.queued() },
        "storage degraded: cannot write the database; rows are kept in memory and retried",
      );
    } else {
      this.#retryDelayMs = Math.min(this.#retryDelayMs * 2, RETRY_MAX_MS);
    }
    this.#degradedReason = errorText(error);
    return this.#retryDelayMs;
  }

  /** A commit succeeded. */
  succeeded(): void {
    if (this.#degradedReason === undefined) return;
    this.logger.warn(
      { degradedMs: Date.now() - this.#degradedSince, dropped: this.#dropped },
      "storage recovered: the spooled rows are written",
    );
    this.#degradedReason = undefined;
    if (this.#droppedUnreported > 0) this.#reportDrops();
  }

  /** The tick closed after its last attempt: reports what it could not write. */
  closed(): void {
    const lost = this.queued();
    if (lost > 0) {
      this.logger.error(
        { lost, reason: this.#degradedReason },
        "storage closed with rows it could not write: they are lost",
      );
    }
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
