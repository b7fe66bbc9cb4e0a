import type { Database, Statement } from "better-sqlite3";
import type { Logger } from "../../log/logger.ts";
import type {
  MonitorEventQuery,
  MonitorEventStore,
  RetentionLimits,
  StoredMonitorEvent,
  TurnQuery,
  TurnSummary,
} from "../../monitor/event-store.ts";
import type { MonitorEvent } from "../../monitor/monitor.ts";
import { escapeLike } from "../like.ts";
import {
  EVENT_COLUMNS as COLUMNS,
  type EventRow,
  MONITOR_WRITE_DELAY_MS,
  NO_ID_LIMIT,
  oldestKept,
  REPLY_TEXT_MAX,
  TrimSchedule,
  type TurnRow,
  toEvent,
  toTurnSummary,
} from "../monitor-event-rows.ts";
import { BatchWriter } from "./batch-writer.ts";
import type { WriteTick } from "./write-tick.ts";

/**
 * Monitor events in the `monitor_events` table. Each batch is written in one savepoint that
 * also deletes what falls outside the retention limits: row ids only grow, so the newest
 * `maxEvents` rows are those above `lastId - maxEvents`, and the cap costs one range delete.
 * Ids are given on append, not on commit, so the live stream carries the id an event is
 * stored under.
 */
export class SqliteMonitorEventStore implements MonitorEventStore {
  readonly #writer: BatchWriter<StoredMonitorEvent>;
  #nextId: number;
  readonly #selectPage: Statement<[number, number]>;
  readonly #selectReplyPage: Statement<[string, number, number]>;
  /** `?` 1 is a JSON array of types. */
  readonly #selectTypesPage: Statement<[string, number, number]>;
  readonly #selectTurnEvents: Statement<[string]>;
  readonly #selectTurns: Statement<[{ search: string | null; before: number; limit: number }]>;

  constructor(db: Database, limits: () => RetentionLimits, logger: Logger, tick: WriteTick) {
    const insert = db.prepare(
      "INSERT INTO monitor_events (id, time, type, reply_id, session_id, data) VALUES (?, ?, ?, ?, ?, ?)",
    );
    const { lastId } = db.prepare("SELECT COALESCE(MAX(id), 0) AS lastId FROM monitor_events").get() as {
      lastId: number;
    };
    this.#nextId = lastId + 1;
    const deleteUpToId = db.prepare("DELETE FROM monitor_events WHERE id <= ?");
    const deleteOlderThan = db.prepare("DELETE FROM monitor_events WHERE time < ?");
    const trim = new TrimSchedule();
    const writeBatch = db.transaction((events: readonly StoredMonitorEvent[]) => {
      let lastId = 0;
      for (const event of events) {
        insert.run(
          event.id,
          event.time,
          event.type,
          event.replyId ?? null,
          event.sessionId ?? null,
          JSON.stringify(event.data),
        );
        lastId = event.id;
      }
      const { maxEvents, maxAgeHours } = limits();
      if (!trim.due(events.length, maxEvents)) return;
      deleteUpToId.run(lastId - maxEvents);
      deleteOlderThan.run(oldestKept(maxAgeHours));
    });
    // Events carry whole prompts; gathering them for a moment keeps their writes off the path
    // of every turn (reads flush first, so the console always sees everything).
    this.#writer = new BatchWriter({
      name: "monitor_events",
      writeBatch,
      logger,
      tick,
      delayMs: MONITOR_WRITE_DELAY_MS,
    });
    this.#selectPage = db.prepare(
      `SELECT ${COLUMNS} FROM monitor_events WHERE id < ? ORDER BY id DESC LIMIT ?`,
    );
    this.#selectReplyPage = db.prepare(
      `SELECT ${COLUMNS} FROM monitor_events WHERE reply_id = ? AND id < ? ORDER BY id DESC LIMIT ?`,
    );
    this.#selectTypesPage = db.prepare(
      `SELECT ${COLUMNS} FROM monitor_events WHERE type IN (SELECT value FROM json_each(?)) AND id < ?
       ORDER BY id DESC LIMIT ?`,
    );
    this.#selectTurnEvents = db.prepare(
      `SELECT ${COLUMNS} FROM monitor_events WHERE reply_id = ? ORDER BY id`,
    );
    this.#selectTurns = db.prepare(
      `SELECT s.id, s.reply_id, s.session_id, s.time AS started_at,
         f.time AS finished_at, f.data AS finished_data,
         (SELECT COUNT(*) FROM monitor_events r WHERE r.reply_id = s.reply_id AND r.type = 'planner.round') AS rounds,
         json_extract(s.data, '$.triggerText') AS trigger_text,
         (SELECT substr(group_concat(json_extract(m.data, '$.text'), '\n' ORDER BY m.id), 1, ${REPLY_TEXT_MAX + 1})
            FROM monitor_events m WHERE m.reply_id = s.reply_id AND m.type = 'message.sent') AS reply_text
       FROM monitor_events s
       LEFT JOIN monitor_events f ON f.id = (
         SELECT MAX(x.id) FROM monitor_events x WHERE x.reply_id = s.reply_id AND x.type = 'turn.finished')
       WHERE s.type = 'turn.started' AND s.id < @before
         AND (@search IS NULL OR s.reply_id LIKE @search || '%' ESCAPE '\\'
              OR s.session_id LIKE '%' || @search || '%' ESCAPE '\\')
       ORDER BY s.id DESC LIMIT @limit`,
    );
  }

  append(event: MonitorEvent): StoredMonitorEvent {
    const stored = { ...event, id: this.#nextId++ };
    this.#writer.push(stored);
    return stored;
  }

  async list(query: MonitorEventQuery): Promise<StoredMonitorEvent[]> {
    this.#writer.flush();
    const before = query.beforeId ?? NO_ID_LIMIT;
    const { replyId, types } = query;
    if (replyId === undefined) {
      const rows =
        types === undefined
          ? this.#selectPage.all(before, query.limit)
          : this.#selectTypesPage.all(JSON.stringify(types), before, query.limit);
      return (rows as EventRow[]).map(toEvent);
    }
    // A turn has few events: its page is filtered by type here.
    const events = (this.#selectReplyPage.all(replyId, before, query.limit) as EventRow[]).map(toEvent);
    return types === undefined ? events : events.filter((event) => types.includes(event.type));
  }

  async turnEvents(replyId: string): Promise<StoredMonitorEvent[]> {
    this.#writer.flush();
    return (this.#selectTurnEvents.all(replyId) as EventRow[]).map(toEvent);
  }

  async turns(query: TurnQuery): Promise<TurnSummary[]> {
    this.#writer.flush();
    const search = query.search ? escapeLike(query.search) : null;
    const before = query.beforeId ?? NO_ID_LIMIT;
    const rows = this.#selectTurns.all({ search, before, limit: query.limit }) as TurnRow[];
    return rows.map(toTurnSummary);
  }

  async flush(): Promise<void> {
    this.#writer.flush();
  }

  /** Commits what is queued; later appends throw. The database stays open (its owner closes it). */
  async close(): Promise<void> {
    this.#writer.close();
  }
}
