import type { StoredMonitorEvent, TurnSummary } from "../monitor/event-store.ts";
import type { MonitorEventType } from "../monitor/monitor.ts";
import { clip } from "../util/values.ts";

/**
 * What the monitor event stores share, whatever the database: their rows as events and turn
 * summaries, and when the retention limits are applied.
 */

/** How long monitor events gather before they are committed together. */
export const MONITOR_WRITE_DELAY_MS = 100;
/** Larger than any row id, for "no upper bound" in paging queries. */
export const NO_ID_LIMIT = Number.MAX_SAFE_INTEGER;
/** Most characters of a turn's sent text the turn list carries (each message.sent holds its own clipped text). */
export const REPLY_TEXT_MAX = 300;
export const EVENT_COLUMNS = "id, time, type, reply_id, session_id, data";

export interface EventRow {
  id: number;
  time: number;
  type: string;
  reply_id: string | null;
  session_id: string | null;
  /** JSON text. */
  data: string;
}

export interface TurnRow {
  id: number;
  reply_id: string;
  session_id: string;
  started_at: number;
  finished_at: number | null;
  /** The last `turn.finished` event's JSON text. */
  finished_data: string | null;
  rounds: number;
  /** The `turn.started` event's triggerText (whatever JSON value it holds). */
  trigger_text: unknown;
  /** The turn's sent texts, one per line, cut at REPLY_TEXT_MAX + 1 characters. */
  reply_text: string | null;
}

export function toEvent(row: EventRow): StoredMonitorEvent {
  const event: StoredMonitorEvent = {
    id: row.id,
    time: row.time,
    // Rows written by an older version may carry a type no longer emitted; the console shows those as they are.
    type: row.type as MonitorEventType,
    data: JSON.parse(row.data) as Record<string, unknown>,
  };
  if (row.reply_id !== null) event.replyId = row.reply_id;
  if (row.session_id !== null) event.sessionId = row.session_id;
  return event;
}

export function toTurnSummary(row: TurnRow): TurnSummary {
  const summary: TurnSummary = {
    id: row.id,
    replyId: row.reply_id,
    sessionId: row.session_id,
    startedAt: row.started_at,
    rounds: row.rounds,
  };
  if (typeof row.trigger_text === "string" && row.trigger_text) summary.triggerText = row.trigger_text;
  if (row.reply_text) summary.replyText = clip(row.reply_text, REPLY_TEXT_MAX);
  if (row.finished_at !== null && row.finished_data !== null) {
    const finished = JSON.parse(row.finished_data) as { status?: unknown; reason?: unknown };
    summary.finishedAt = row.finished_at;
    if (typeof finished.status === "string") summary.status = finished.status;
    if (typeof finished.reason === "string") summary.reason = finished.reason;
  }
  return summary;
}

/**
 * When a batch also cuts the table back to its limits. Trimming is amortised: on the first
 * batch and then whenever a twentieth of maxEvents has been added, so a busy bot deletes in a
 * few large steps instead of a few rows per batch (it may hold up to 5% more than the cap).
 */
export class TrimSchedule {
  #trimmedOnce = false;
  #addedSinceTrim = 0;

  /** `added` rows are being written under a cap of `maxEvents`: whether to trim now. */
  due(added: number, maxEvents: number): boolean {
    this.#addedSinceTrim += added;
    if (this.#trimmedOnce && this.#addedSinceTrim < Math.max(1, Math.floor(maxEvents / 20))) return false;
    this.#trimmedOnce = true;
    this.#addedSinceTrim = 0;
    return true;
  }
}

/** The oldest time kept under `maxAgeHours`. */
export function oldestKept(maxAgeHours: number, now = Date.now()): number {
  return now - maxAgeHours * 3_600_000;
}
