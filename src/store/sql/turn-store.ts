import type { FenceToken } from "../session-fence.ts";
import type { TurnRecord, TurnStatus, TurnStore } from "../types.ts";
import { placeholders, type RowQueue, type SqlDatabase, type Statement } from "./sql-database.ts";

interface TurnRow {
  reply_id: string;
  session_id: string;
  status: string;
  reason: string | null;
  kind: string | null;
  trigger_message_ids: string;
  message_ids: string | null;
  recovered_from: string | null;
  created_at: number;
  finished_at: number | null;
  detail: string | null;
  instance_id: string | null;
  attempt: number | null;
}

export const TURN_COLUMNS =
  "reply_id, session_id, status, reason, kind, trigger_message_ids, message_ids, recovered_from, created_at, finished_at, detail, instance_id, attempt";

/** Recording a turn again replaces the earlier record. */
export const TURN_REPLACES = `ON CONFLICT (reply_id) DO UPDATE SET
  session_id = excluded.session_id, status = excluded.status, reason = excluded.reason,
  kind = excluded.kind, trigger_message_ids = excluded.trigger_message_ids,
  message_ids = excluded.message_ids, recovered_from = excluded.recovered_from,
  created_at = excluded.created_at, finished_at = excluded.finished_at, detail = excluded.detail,
  instance_id = excluded.instance_id, attempt = excluded.attempt`;

const UPSERT_TURN = `INSERT INTO turns (${TURN_COLUMNS}) VALUES (${placeholders(TURN_COLUMNS)}) ${TURN_REPLACES}`;

/** Marks a running turn interrupted: the one a recovered turn runs again. */
export const INTERRUPT_TURN =
  "UPDATE turns SET status = 'interrupted', reason = ?, finished_at = ? WHERE reply_id = ? AND status = 'running'";

/** How a backend starts a turn: what differs between one instance and a cluster. */
export interface TurnStart {
  /** As TurnStore.begin: commits the running turn at once, after everything queued before it. */
  begin(turn: TurnRecord, fence?: FenceToken): Promise<void>;
  /** As TurnStore.advanceFence. */
  advanceFence(sessionId: string, fence: FenceToken): Promise<void>;
}

/**
 * Turns in the `turns` table. A turn's end is written in the database's batch of the
 * event-loop turn; its start is committed at once (`begin`), so a crash cannot lose it.
 */
export class SqlTurnStore implements TurnStore {
  readonly #sql: SqlDatabase;
  readonly #queue: RowQueue<TurnRecord>;
  readonly #start: TurnStart;
  readonly #bySession: string;
  readonly #running: string;

  constructor(sql: SqlDatabase, queue: RowQueue<TurnRecord>, start: TurnStart) {
    this.#sql = sql;
    this.#queue = queue;
    this.#start = start;
    const order = sql.codePointOrder;
    this.#bySession = `SELECT ${TURN_COLUMNS} FROM turns WHERE session_id = ?
      ORDER BY created_at DESC, reply_id${order} DESC LIMIT ?`;
    this.#running = `SELECT ${TURN_COLUMNS} FROM turns WHERE status = 'running' ORDER BY created_at, reply_id${order}`;
  }

  begin(turn: TurnRecord, fence?: FenceToken): Promise<void> {
    return this.#start.begin(turn, fence);
  }

  advanceFence(sessionId: string, fence: FenceToken): Promise<void> {
    return this.#start.advanceFence(sessionId, fence);
  }

  async record(turn: TurnRecord): Promise<void> {
    this.#queue.push(turn);
  }

  /** Commits what is queued; later records throw. */
  async close(): Promise<void> {
    await this.#queue.close();
  }

  async get(replyId: string): Promise<TurnRecord | undefined> {
    await this.#queue.flush();
    const row = await this.#sql.get<TurnRow>(`SELECT ${TURN_COLUMNS} FROM turns WHERE reply_id = ?`, [
      replyId,
    ]);
    return row && toTurnRecord(row);
  }

  async listBySession(sessionId: string, limit: number): Promise<TurnRecord[]> {
    if (limit <= 0) return [];
    await this.#queue.flush();
    return (await this.#sql.all<TurnRow>(this.#bySession, [sessionId, limit])).map(toTurnRecord);
  }

  async running(): Promise<TurnRecord[]> {
    await this.#queue.flush();
    return (await this.#sql.all<TurnRow>(this.#running)).map(toTurnRecord);
  }
}

/** A turn's column values, in TURN_COLUMNS order. */
export function turnValues(turn: TurnRecord): unknown[] {
  return [
    turn.replyId,
    turn.sessionId,
    turn.status,
    turn.reason ?? null,
    turn.kind ?? null,
    JSON.stringify(turn.triggerMessageIds),
    turn.messageIds === undefined ? null : JSON.stringify(turn.messageIds),
    turn.recoveredFrom ?? null,
    turn.createdAt,
    turn.finishedAt ?? null,
    turn.detail === undefined ? null : JSON.stringify(turn.detail),
    turn.instanceId ?? null,
    turn.attempt ?? null,
  ];
}

/** The interruption of the turn that `turn` runs again, if it runs one. */
export function interruptionOf(turn: TurnRecord): Statement[] {
  if (turn.recoveredFrom === undefined) return [];
  const reason = `interrupted by a restart; run again as turn ${turn.replyId}`;
  return [{ sql: INTERRUPT_TURN, params: [reason, turn.createdAt, turn.recoveredFrom] }];
}

/** Writing a turn, for a backend that writes row by row: its upsert, then the interruption it causes. */
export function turnWrites(turn: TurnRecord): Statement[] {
  return [{ sql: UPSERT_TURN, params: turnValues(turn) }, ...interruptionOf(turn)];
}

function toTurnRecord(row: TurnRow): TurnRecord {
  const turn: TurnRecord = {
    replyId: row.reply_id,
    sessionId: row.session_id,
    status: row.status as TurnStatus,
    triggerMessageIds: JSON.parse(row.trigger_message_ids) as string[],
    createdAt: row.created_at,
  };
  if (row.reason !== null) turn.reason = row.reason;
  if (row.kind !== null) turn.kind = row.kind;
  if (row.message_ids !== null) turn.messageIds = JSON.parse(row.message_ids) as string[];
  if (row.recovered_from !== null) turn.recoveredFrom = row.recovered_from;
  if (row.finished_at !== null) turn.finishedAt = row.finished_at;
  if (row.detail !== null) turn.detail = JSON.parse(row.detail) as Record<string, unknown>;
  if (row.instance_id !== null) turn.instanceId = row.instance_id;
  if (row.attempt !== null) turn.attempt = row.attempt;
  return turn;
}
