import type { PgQuery } from "./pg-query.ts";

/** Milliseconds count from here, so ids stay below 2^53 until about 2095. */
const EPOCH_MS = Date.UTC(2026, 0, 1);
/** Instances sharing a database at once: each has its own slot. */
const SLOT_BITS = 5;
/** Ids one instance gives within one millisecond; a faster burst borrows the next milliseconds. */
const COUNTER_BITS = 7;
const SLOTS = 2 ** SLOT_BITS;
const PER_MS = 2 ** COUNTER_BITS;

/**
 * Monitor event ids, given synchronously (the live stream carries an event's id before it is
 * stored) and ordered by time across every instance sharing the database, so the timeline's
 * "newest first" and its paging read the same on any console. An id is the millisecond (since
 * 2026) times 4,096, plus the instance's slot times 128, plus a counter: two instances never
 * give the same id while their slots differ, and each takes the next slot of a database
 * sequence when it opens (32 slots, reused round robin: only 32 instances opened between two
 * of them that run at the same time could meet). Never decreasing, even if the clock steps back.
 */
export class EventIds {
  #ms = 0;
  #counter = 0;

  private constructor(
    private readonly slot: number,
    private readonly now: () => number,
  ) {}

  static async open(db: PgQuery, now: () => number = Date.now): Promise<EventIds> {
    const [row] = await db.query<{ slot: number }>("SELECT nextval('monitor_event_slots') AS slot");
    return new EventIds(Number(row?.slot ?? 0) % SLOTS, now);
  }

  take(): number {
    const ms = Math.max(this.now() - EPOCH_MS, 0);
    if (ms > this.#ms) {
      this.#ms = ms;
      this.#counter = 0;
    } else if (this.#counter === PER_MS) {
      this.#ms += 1;
      this.#counter = 0;
    }
    const id = (this.#ms * SLOTS + this.slot) * PER_MS + this.#counter;
    this.#counter += 1;
    return id;
  }
}
