import type { Logger } from "../../log/logger.ts";
import type { PgDatabase } from "./database.ts";

/** Ids reserved at a time; the next block is asked for when half of this one is used. */
const BLOCK_SIZE = 1_000;
/** After a failed reservation (the server is down), the next attempt waits this long. */
const RETRY_MS = 1_000;

interface Block {
  first: number;
  /** One past the last id of the block. */
  end: number;
}

/**
 * Ids given synchronously (the monitor's live stream carries an event's id before it is
 * stored) from blocks reserved in the one-row `monitor_event_ids` table, so instances sharing
 * the database never give the same id. A single instance gets consecutive ids, across restarts
 * too: closing hands back what its block did not use, unless another instance reserved since.
 */
export class IdBlocks {
  readonly #db: PgDatabase;
  readonly #logger: Logger;
  #next: number;
  #end: number;
  #upcoming: Block | undefined;
  #reserving = false;
  #retryAt = 0;

  private constructor(db: PgDatabase, logger: Logger, block: Block) {
    this.#db = db;
    this.#logger = logger;
    this.#next = block.first;
    this.#end = block.end;
  }

  static async open(db: PgDatabase, logger: Logger): Promise<IdBlocks> {
    return new IdBlocks(db, logger, await reserve(db));
  }

  /** The next id: greater than every id this instance gave before. */
  take(): number {
    if (this.#next >= this.#end && this.#upcoming !== undefined) {
      // Blocks only grow: ids already given past the end of the last block are skipped.
      this.#next = Math.max(this.#next, this.#upcoming.first);
      this.#end = this.#upcoming.end;
      this.#upcoming = undefined;
    }
    // Past the end of the block (a burst faster than one reservation), ids go on counting:
    // unique unless another instance reserved the very next block meanwhile.
    const id = this.#next++;
    if (this.#end - this.#next < BLOCK_SIZE / 2 && this.#upcoming === undefined) this.#reserveNext();
    return id;
  }

  /** Hands back the unused rest of the block when it is still the last one reserved. */
  async close(): Promise<void> {
    const upcoming = this.#upcoming;
    // A next block that does not follow this one leaves a gap another instance may have reserved.
    const unused = upcoming === undefined || upcoming.first === this.#end ? this.#next : upcoming.first;
    await this.#db.query("UPDATE monitor_event_ids SET next_id = $1 WHERE next_id = $2", [
      unused,
      upcoming?.end ?? this.#end,
    ]);
  }

  #reserveNext(): void {
    if (this.#reserving || Date.now() < this.#retryAt) return;
    this.#reserving = true;
    reserve(this.#db)
      .then((block) => {
        this.#upcoming = block;
      })
      .catch((error: unknown) => {
        // Retried at an id taken a little later; meanwhile ids go on counting.
        this.#retryAt = Date.now() + RETRY_MS;
        this.#logger.warn({ err: error }, "could not reserve monitor event ids");
      })
      .finally(() => {
        this.#reserving = false;
      });
  }
}

async function reserve(db: PgDatabase): Promise<Block> {
  const [row] = await db.query<{ end: number }>(
    "UPDATE monitor_event_ids SET next_id = next_id + $1 RETURNING next_id AS end",
    [BLOCK_SIZE],
  );
  const end = (row as { end: number }).end;
  return { first: end - BLOCK_SIZE, end };
}
