import { setTimeout as sleep } from "node:timers/promises";
import type { Database, Statement } from "better-sqlite3";
import type { Logger } from "../../log/logger.ts";
import type { MessageRetentionSettings } from "../config.ts";
import { errorText, isStorageUnavailable } from "./storage-errors.ts";

const DAY_MS = 86_400_000;
/** Rows one step deletes at most: each step is a short transaction on the event loop. */
const STEP_ROWS = 500;
/** The pause between steps, so ingest and the console run between them. */
const STEP_PAUSE_MS = 10;
const FIRST_PASS_DELAY_MS = 10_000;
const PASS_INTERVAL_MS = 10 * 60_000;
/** Quarantined rows kept: enough to inspect a problem, never a second unbounded table. */
const QUARANTINE_KEPT = 1_000;

/**
 * Deletes messages beyond `storage.retention` in small steps on a timer, off the hot path:
 * by age in row-id ranges from the oldest row (ids grow with arrival, so the oldest rows are
 * the first ids), and per chat from its oldest messages, found through `chat_sessions`. Also
 * keeps the quarantine to its newest rows.
 */
export class MessageRetention {
  readonly #selectFirstId: Statement<[]>;
  readonly #countOldInRange: Statement<[number, number, number]>;
  readonly #deleteOldInRange: Statement<[number, number, number]>;
  readonly #selectOverCap: Statement<[number]>;
  readonly #deleteOldestOfSession: Statement<[string, string, number]>;
  readonly #uncount: Statement<[number, string]>;
  readonly #recount: Statement<[string, string]>;
  readonly #forgetEmptySessions: Statement<[]>;
  readonly #trimQuarantine: Statement<[number]>;
  readonly #pruneAge: (cutoff: number) => number;
  readonly #pruneSession: (sessionId: string, surplus: number) => number;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<number> | undefined;

  constructor(
    db: Database,
    private readonly settings: () => MessageRetentionSettings,
    /** False while the database cannot be written: pruning waits for the spool to drain. */
    private readonly canWrite: () => boolean,
    private readonly logger: Logger,
  ) {
    this.#selectFirstId = db.prepare("SELECT MIN(id) AS id FROM messages");
    this.#countOldInRange = db.prepare(
      `SELECT session_id, COUNT(*) AS n FROM messages WHERE id >= ? AND id < ? AND time < ? GROUP BY session_id`,
    );
    this.#deleteOldInRange = db.prepare("DELETE FROM messages WHERE id >= ? AND id < ? AND time < ?");
    this.#selectOverCap = db.prepare(
      "SELECT session_id, message_count FROM chat_sessions WHERE message_count > ? LIMIT 1",
    );
    this.#deleteOldestOfSession = db.prepare(
      `DELETE FROM messages WHERE session_id = ? AND id IN
         (SELECT id FROM messages WHERE session_id = ? ORDER BY id LIMIT ?)`,
    );
    this.#uncount = db.prepare(
      "UPDATE chat_sessions SET message_count = message_count - ? WHERE session_id = ?",
    );
    this.#recount = db.prepare(
      "UPDATE chat_sessions SET message_count = (SELECT COUNT(*) FROM messages WHERE session_id = ?) WHERE session_id = ?",
    );
    this.#forgetEmptySessions = db.prepare("DELETE FROM chat_sessions WHERE message_count <= 0");
    this.#trimQuarantine = db.prepare(
      "DELETE FROM quarantine WHERE id <= (SELECT MAX(id) FROM quarantine) - ?",
    );
    this.#pruneAge = db.transaction((cutoff: number) => {
      const first = (this.#selectFirstId.get() as { id: number | null }).id;
      if (first === null) return 0;
      const range = [first, first + STEP_ROWS, cutoff] as const;
      const counts = this.#countOldInRange.all(...range) as Array<{ session_id: string; n: number }>;
      for (const { session_id, n } of counts) this.#uncount.run(n, session_id);
      this.#forgetEmptySessions.run();
      return this.#deleteOldInRange.run(...range).changes;
    });
    this.#pruneSession = db.transaction((sessionId: string, surplus: number) => {
      const deleted = this.#deleteOldestOfSession.run(
        sessionId,
        sessionId,
        Math.min(surplus, STEP_ROWS),
      ).changes;
      // A count above the rows there are would otherwise keep this chat "over its cap" forever.
      if (deleted === 0) this.#recount.run(sessionId, sessionId);
      else this.#uncount.run(deleted, sessionId);
      return deleted;
    });
  }

  /** Runs a pass shortly after start and then every few minutes. */
  start(): void {
    const pass = () => void this.runPass();
    this.#timer = setTimeout(() => {
      pass();
      this.#timer = setInterval(pass, PASS_INTERVAL_MS);
      this.#timer.unref();
    }, FIRST_PASS_DELAY_MS);
    this.#timer.unref();
  }

  stop(): void {
    clearTimeout(this.#timer);
    clearInterval(this.#timer);
  }

  /** Deletes what the limits exclude, one small step at a time; resolves to the rows deleted. */
  runPass(): Promise<number> {
    this.#running ??= this.#pass().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  async #pass(): Promise<number> {
    let deleted = 0;
    try {
      for (let step = this.#step(); step > 0; step = this.#step()) {
        deleted += step;
        await sleep(STEP_PAUSE_MS);
      }
      if (this.canWrite()) this.#trimQuarantine.run(QUARANTINE_KEPT);
    } catch (error) {
      // Locked or full: the next pass tries again. Anything else is worth a look.
      if (!isStorageUnavailable(error)) this.logger.warn({ err: error }, "message retention failed");
      else this.logger.debug({ reason: errorText(error) }, "message retention postponed");
    }
    if (deleted > 0) this.logger.info({ deleted }, "deleted messages beyond storage.retention");
    return deleted;
  }

  /** One bounded delete; 0 when nothing is left to delete (or the database cannot be written). */
  #step(): number {
    if (!this.canWrite()) return 0;
    const { days, messagesPerSession } = this.settings();
    if (days > 0) {
      const deleted = this.#pruneAge(Date.now() - days * DAY_MS);
      if (deleted > 0) return deleted;
    }
    if (messagesPerSession > 0) {
      const over = this.#selectOverCap.get(messagesPerSession) as
        | { session_id: string; message_count: number }
        | undefined;
      if (over) return this.#pruneSession(over.session_id, over.message_count - messagesPerSession);
    }
    return 0;
  }
}
