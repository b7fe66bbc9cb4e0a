import type { Database } from "better-sqlite3";
import type { Logger } from "../../log/logger.ts";
import { SpoolHealth } from "../spool-health.ts";
import type { StorageStatus } from "../types.ts";
import { Quarantine } from "./quarantine.ts";

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
  readonly #commit: (writers: TickWriter[], alsoWrite?: () => void) => void;
  #scheduled: NodeJS.Immediate | undefined;
  #retry: NodeJS.Timeout | undefined;
  readonly #health: SpoolHealth;
  #closing = false;

  constructor(
    private readonly db: Database,
    logger: Logger,
    options: WriteTickOptions,
  ) {
    this.spoolLimit = options.spoolLimit;
    this.#health = new SpoolHealth(logger, options.spoolLimit, () => this.#queued());
    this.quarantine = new Quarantine(db, logger);
    this.#commit = db.transaction((writers: TickWriter[], alsoWrite?: () => void) => {
      for (const writer of writers) writer.writeQueued();
      alsoWrite?.();
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

  /**
   * Commits everything scheduled together with `write` in ONE transaction, now, also while
   * degraded: for what must be on disk before the caller goes on (a turn's start), without a
   * commit of its own after the tick's. Throws when it cannot be committed; the scheduled rows
   * are then committed alone at once (or spooled, when the database refuses them too).
   */
  commitWith(write: () => void): void {
    if (this.#scheduled) clearImmediate(this.#scheduled);
    this.#scheduled = undefined;
    const writers = [...this.#dirty];
    try {
      this.#commit(writers, write);
    } catch (error) {
      // What was queued before the refused write is not refused with it.
      if (this.#retry === undefined) this.#commitDirty();
      throw error;
    }
    this.#committed(writers);
  }

  status(): StorageStatus {
    return this.#health.status();
  }

  #queued(): number {
    let queued = 0;
    for (const writer of this.#writers) queued += writer.queued;
    return queued;
  }

  /** A store's spool overflowed and it dropped `count` rows. */
  dropped(count: number): void {
    this.#health.dropped(count);
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
    this.#health.closed();
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
    this.#committed(writers);
  }

  #committed(writers: TickWriter[]): void {
    this.#dirty.clear();
    for (const writer of writers) writer.committed();
    this.#health.succeeded();
  }

  #degrade(error: unknown): void {
    const retryDelayMs = this.#health.failed(error);
    if (this.#closing) return;
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      this.#commitDirty();
    }, retryDelayMs);
    this.#retry.unref();
  }
}
