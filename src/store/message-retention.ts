import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "../log/logger.ts";
import type { MessageRetentionSettings } from "./config.ts";
import { errorText } from "./sqlite/storage-errors.ts";

const DAY_MS = 86_400_000;
/** Rows one step deletes at most: each step is a short transaction. */
export const STEP_ROWS = 500;
/** The pause between steps, so ingest and the console run between them. */
const STEP_PAUSE_MS = 10;
const FIRST_PASS_DELAY_MS = 10_000;
const PASS_INTERVAL_MS = 10 * 60_000;
/** Quarantined rows kept: enough to inspect a problem, never a second unbounded table. */
const QUARANTINE_KEPT = 1_000;

/** The deletions retention runs on one database, each one short transaction. */
export interface RetentionSteps {
  /**
   * Deletes the messages older than `cutoff` among the next STEP_ROWS row ids from the oldest
   * row (ids grow with arrival), keeping `chat_sessions` counts right; resolves how many.
   */
  pruneAge(cutoff: number): Promise<number>;
  /** A chat holding more than `limit` messages, as `chat_sessions` counts them. */
  overCap(limit: number): Promise<{ sessionId: string; count: number } | undefined>;
  /** Deletes the chat's oldest `rows` messages (at most STEP_ROWS); resolves how many. */
  pruneSession(sessionId: string, rows: number): Promise<number>;
  /** Keeps the quarantine's newest `kept` rows. */
  trimQuarantine(kept: number): Promise<void>;
  /** Whether a step failed because the database cannot be written now (then the next pass retries). */
  isUnavailable(error: unknown): boolean;
}

/**
 * Deletes messages beyond `storage.retention` in small steps on a timer, off the hot path:
 * by age from the oldest rows, and per chat from its oldest messages, found through
 * `chat_sessions`. Also keeps the quarantine to its newest rows.
 */
export class MessageRetention {
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<number> | undefined;

  constructor(
    private readonly steps: RetentionSteps,
    private readonly settings: () => MessageRetentionSettings,
    /** False while the database cannot be written: pruning waits for the spool to drain. */
    private readonly canWrite: () => boolean,
    private readonly logger: Logger,
  ) {}

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

  /** Stops the timer and resolves once a pass under way has ended. */
  async stop(): Promise<void> {
    clearTimeout(this.#timer);
    clearInterval(this.#timer);
    await this.#running;
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
      for (let step = await this.#step(); step > 0; step = await this.#step()) {
        deleted += step;
        await sleep(STEP_PAUSE_MS);
      }
      if (this.canWrite()) await this.steps.trimQuarantine(QUARANTINE_KEPT);
    } catch (error) {
      // Unreachable, locked or full: the next pass tries again. Anything else is worth a look.
      if (!this.steps.isUnavailable(error)) this.logger.warn({ err: error }, "message retention failed");
      else this.logger.debug({ reason: errorText(error) }, "message retention postponed");
    }
    if (deleted > 0) this.logger.info({ deleted }, "deleted messages beyond storage.retention");
    return deleted;
  }

  /** One bounded delete; 0 when nothing is left to delete (or the database cannot be written). */
  async #step(): Promise<number> {
    if (!this.canWrite()) return 0;
    const { days, messagesPerSession } = this.settings();
    if (days > 0) {
      const deleted = await this.steps.pruneAge(Date.now() - days * DAY_MS);
      if (deleted > 0) return deleted;
    }
    if (messagesPerSession > 0) {
      const over = await this.steps.overCap(messagesPerSession);
      if (over) return this.steps.pruneSession(over.sessionId, over.count - messagesPerSession);
    }
    return 0;
  }
}
