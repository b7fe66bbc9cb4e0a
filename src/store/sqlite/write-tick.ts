import type { Database } from "better-sqlite3";
import type { Logger } from "../../log/logger.ts";

/** A queue that the write tick drains: it writes what it holds and handles its own errors. */
export interface TickWriter {
  writeQueued(): void;
}

/**
 * Commits every store's queued writes (messages, usage, turns, monitor events) in ONE
 * transaction per event-loop turn: a replied turn touches four tables, and one commit instead
 * of four is most of what storage costs per turn. Each store's own batch runs inside it as a
 * savepoint, so one store's failure does not lose the others' rows.
 */
export class WriteTick {
  readonly #dirty = new Set<TickWriter>();
  #scheduled: NodeJS.Immediate | undefined;
  readonly #commit: (writers: TickWriter[]) => void;

  constructor(
    private readonly db: Database,
    private readonly logger: Logger,
  ) {
    this.#commit = db.transaction((writers: TickWriter[]) => {
      for (const writer of writers) writer.writeQueued();
    });
  }

  schedule(writer: TickWriter): void {
    this.#dirty.add(writer);
    this.#scheduled ??= setImmediate(() => this.run());
  }

  /** Commits everything scheduled now (before reads and on close). */
  run(): void {
    if (this.#scheduled) clearImmediate(this.#scheduled);
    this.#scheduled = undefined;
    if (this.#dirty.size === 0) return;
    const writers = [...this.#dirty];
    this.#dirty.clear();
    if (!this.db.open) return;
    try {
      this.#commit(writers);
    } catch (error) {
      // The stores handle their own failures; this is BEGIN or COMMIT itself failing.
      this.logger.error({ err: error }, "failed to commit the write batch");
    }
  }
}
