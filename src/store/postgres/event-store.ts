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
import { PgBatchWriter } from "./batch-writer.ts";
import type { PgDatabase } from "./database.ts";
import { EventIds } from "./event-ids.ts";
import type { PgQuery } from "./pg-query.ts";
import type { PgWriteTick } from "./write-tick.ts";

const SELECT_TURNS = `
  SELECT s.id, s.reply_id, s.session_id, s.time AS started_at,
    f.time AS finished_at, f.data AS finished_data,
    (SELECT COUNT(*) FROM monitor_events r WHERE r.reply_id = s.reply_id AND r.type = 'planner.round') AS rounds,
    s.text AS trigger_text,
    (SELECT left(string_agg(m.text, E'\\n' ORDER BY m.id), ${REPLY_TEXT_MAX + 1})
       FROM monitor_events m WHERE m.reply_id = s.reply_id AND m.type = 'message.sent') AS reply_text
  FROM monitor_events s
  LEFT JOIN monitor_events f ON f.id = (
    SELECT MAX(x.id) FROM monitor_events x WHERE x.reply_id = s.reply_id AND x.type = 'turn.finished')
  WHERE s.type = 'turn.started' AND s.id < $2
    AND ($1::text IS NULL OR s.reply_id ILIKE $1 || '%' ESCAPE '\\'
         OR s.session_id ILIKE '%' || $1 || '%' ESCAPE '\\')
  ORDER BY s.id DESC LIMIT $3`;

/**
 * Monitor events in the `monitor_events` table on PostgreSQL. Each batch is written in the
 * write tick's transaction, which also deletes what falls outside the retention limits. Ids are
 * given on append, not on commit, so the live stream carries the id an event is stored under;
 * they are ordered by time across instances (EventIds), so the count cap keeps the `maxEvents`
 * newest.
 */
export class PgMonitorEventStore implements MonitorEventStore {
  readonly #db: PgDatabase;
  readonly #ids: EventIds;
  readonly #writer: PgBatchWriter<StoredMonitorEvent>;

  private constructor(
    db: PgDatabase,
    ids: EventIds,
    limits: () => RetentionLimits,
    logger: Logger,
    tick: PgWriteTick,
  ) {
    this.#db = db;
    this.#ids = ids;
    const trim = new TrimSchedule();
    const writeBatch = async (tx: PgQuery, events: readonly StoredMonitorEvent[]) => {
      await insertEvents(tx, events);
      const { maxEvents, maxAgeHours } = limits();
      if (!trim.due(events.length, maxEvents)) return;
      // Ids are not dense: the cap counts rows, not ids.
      await tx.query(
        `DELETE FROM monitor_events WHERE id <= (
           SELECT id FROM monitor_events ORDER BY id DESC OFFSET $1 LIMIT 1)`,
        [maxEvents],
      );
      await tx.query("DELETE FROM monitor_events WHERE time < $1", [oldestKept(maxAgeHours)]);
    };
    // Events carry whole prompts; gathering them for a moment keeps their writes off the path
    // of every turn (reads flush first, so the console always sees everything).
    this.#writer = new PgBatchWriter({
      name: "monitor_events",
      writeBatch,
      logger,
      tick,
      delayMs: MONITOR_WRITE_DELAY_MS,
    });
  }

  /** Takes this instance's id slot, then the store takes appends. */
  static async open(
    db: PgDatabase,
    limits: () => RetentionLimits,
    logger: Logger,
    tick: PgWriteTick,
  ): Promise<PgMonitorEventStore> {
    return new PgMonitorEventStore(db, await EventIds.open(db), limits, logger, tick);
  }

  append(event: MonitorEvent): StoredMonitorEvent {
    const stored = { ...event, id: this.#ids.take() };
    this.#writer.push(stored);
    return stored;
  }

  async list(query: MonitorEventQuery): Promise<StoredMonitorEvent[]> {
    await this.#writer.flush();
    const before = query.beforeId ?? NO_ID_LIMIT;
    const { replyId, types } = query;
    if (replyId === undefined) {
      const rows =
        types === undefined
          ? await this.#db.query<EventRow>(
              `SELECT ${COLUMNS} FROM monitor_events WHERE id < $1 ORDER BY id DESC LIMIT $2`,
              [before, query.limit],
            )
          : await this.#db.query<EventRow>(
              `SELECT ${COLUMNS} FROM monitor_events WHERE type = ANY($1::text[]) AND id < $2
               ORDER BY id DESC LIMIT $3`,
              [types, before, query.limit],
            );
      return rows.map(toEvent);
    }
    // A turn has few events: its page is filtered by type here.
    const rows = await this.#db.query<EventRow>(
      `SELECT ${COLUMNS} FROM monitor_events WHERE reply_id = $1 AND id < $2 ORDER BY id DESC LIMIT $3`,
      [replyId, before, query.limit],
    );
    const events = rows.map(toEvent);
    return types === undefined ? events : events.filter((event) => types.includes(event.type));
  }

  async turnEvents(replyId: string): Promise<StoredMonitorEvent[]> {
    await this.#writer.flush();
    const rows = await this.#db.query<EventRow>(
      `SELECT ${COLUMNS} FROM monitor_events WHERE reply_id = $1 ORDER BY id`,
      [replyId],
    );
    return rows.map(toEvent);
  }

  async turns(query: TurnQuery): Promise<TurnSummary[]> {
    await this.#writer.flush();
    const search = query.search ? escapeLike(query.search) : null;
    const rows = await this.#db.query<TurnRow>(SELECT_TURNS, [
      search,
      query.beforeId ?? NO_ID_LIMIT,
      query.limit,
    ]);
    return rows.map(toTurnSummary);
  }

  async flush(): Promise<void> {
    await this.#writer.flush();
  }

  /** Commits what is queued; later appends throw. The database stays open. */
  async close(): Promise<void> {
    await this.#writer.close();
  }
}

/** One statement for the whole batch: each column as an array. */
async function insertEvents(tx: PgQuery, events: readonly StoredMonitorEvent[]): Promise<void> {
  await tx.query(
    `INSERT INTO monitor_events (id, time, type, reply_id, session_id, data, text)
     SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[])`,
    [
      events.map((event) => event.id),
      events.map((event) => event.time),
      events.map((event) => event.type),
      events.map((event) => event.replyId ?? null),
      events.map((event) => event.sessionId ?? null),
      events.map((event) => JSON.stringify(event.data)),
      events.map(listedTextOf),
    ],
  );
}

/**
 * What the turn list shows of an event: who said what to start a turn, or what a message sent.
 * PostgreSQL text cannot hold NUL characters; the JSON in `data` keeps them escaped.
 */
function listedTextOf(event: MonitorEvent): string | null {
  const text =
    event.type === "turn.started"
      ? event.data.triggerText
      : event.type === "message.sent"
        ? event.data.text
        : undefined;
  return typeof text === "string" ? text.replaceAll("\u0000", "") : null;
}
