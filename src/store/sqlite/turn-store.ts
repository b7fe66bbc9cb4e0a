import type { Database, Statement, Transaction } from "better-sqlite3";
import type { Logger } from "../../log/logger.ts";
import type { TurnRecord, TurnStatus, TurnStore } from "../types.ts";
import { BatchWriter } from "./batch-writer.ts";
import type { WriteTick } from "./write-tick.ts";

export interface TurnRow {
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

/** Recording a turn again replaces the earlier record (the same SQL in SQLite and PostgreSQL). */
export const TURN_REPLACES = `ON CONFLICT (reply_id) DO UPDATE SET
  session_id = excluded.session_id, status = excluded.status, reason = excluded.reason,
  kind = excluded.kind, trigger_message_ids = excluded.trigger_message_ids,
  message_ids = excluded.message_ids, recovered_from = excluded.recovered_from,
  created_at = excluded.created_at, finished_at = excluded.finished_at, detail = excluded.detail,
  instance_id = excluded.instance_id, attempt = excluded.attempt`;

/**
 * Turns in the `turns` table. A turn's end is written in the database's batch of the
 * event-loop turn; its start is committed at once (`begin`), so a crash cannot lose it.
 */
export class SqliteTurnStore implements TurnStore {
  readonly #writer: BatchWriter<TurnRecord>;
  readonly #begin: Transaction<(turn: TurnRecord) => void>;
  readonly #selectOne: Statement<[string]>;
  readonly #selectBySession: Statement<[string, number]>;
  readonly #selectRunning: Statement<[]>;

  constructor(db: Database, logger: Logger, tick: WriteTick) {
    const upsert = db.prepare(
      `INSERT INTO turns (${TURN_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ${TURN_REPLACES}`,
    );
    const interrupt = db.prepare(
      "UPDATE turns SET status = 'interrupted', reason = ?, finished_at = ? WHERE reply_id = ? AND status = 'running'",
    );
    const write = (turn: TurnRecord) => {
      upsert.run(...turnValues(turn));
      if (turn.recoveredFrom !== undefined) {
        interrupt.run(interruptedReason(turn), turn.createdAt, turn.recoveredFrom);
      }
    };
    const upsertAll = db.transaction((turns: readonly TurnRecord[]) => {
      for (const turn of turns) write(turn);
    });
    this.#begin = db.transaction(write);
    this.#writer = new BatchWriter({ name: "turns", writeBatch: upsertAll, logger, tick });
    this.#selectOne = db.prepare(`SELECT ${TURN_COLUMNS} FROM turns WHERE reply_id = ?`);
    this.#selectBySession = db.prepare(
      `SELECT ${TURN_COLUMNS} FROM turns WHERE session_id = ? ORDER BY created_at DESC, reply_id DESC LIMIT ?`,
    );
    this.#selectRunning = db.prepare(
      `SELECT ${TURN_COLUMNS} FROM turns WHERE status = 'running' ORDER BY created_at, reply_id`,
    );
  }

  /** A lease token is ignored: a SQLite store has one instance, nothing to fence (session-fence.ts). */
  async begin(turn: TurnRecord): Promise<void> {
    // Everything queued first (the trigger messages among it): a running turn on disk can
    // always be run again from its stored messages.
    this.#writer.flush();
    this.#begin(turn);
  }

  /** Nothing to record: a SQLite store has one instance. */
  async advanceFence(): Promise<void> {}

  async record(turn: TurnRecord): Promise<void> {
    this.#writer.push(turn);
  }

  /** Commits what is queued; later records throw. */
  async close(): Promise<void> {
    this.#writer.close();
  }

  async get(replyId: string): Promise<TurnRecord | undefined> {
    this.#writer.flush();
    const row = this.#selectOne.get(replyId) as TurnRow | undefined;
    return row && toTurnRecord(row);
  }

  async listBySession(sessionId: string, limit: number): Promise<TurnRecord[]> {
    if (limit <= 0) return [];
    this.#writer.flush();
    return (this.#selectBySession.all(sessionId, limit) as TurnRow[]).map(toTurnRecord);
  }

  async running(): Promise<TurnRecord[]> {
    this.#writer.flush();
    return (this.#selectRunning.all() as TurnRow[]).map(toTurnRecord);
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

/** Why the turn that `turn` runs again is marked interrupted. */
export function interruptedReason(turn: TurnRecord): string {
  return `interrupted by a restart; run again as turn ${turn.replyId}`;
}

export function toTurnRecord(row: TurnRow): TurnRecord {
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
