import type { Database, Statement } from "better-sqlite3";
import type { Logger } from "../../log/logger.ts";
import type { TurnRecord, TurnStatus, TurnStore } from "../types.ts";
import { BatchWriter } from "./batch-writer.ts";
import type { WriteTick } from "./write-tick.ts";

interface TurnRow {
  reply_id: string;
  session_id: string;
  status: string;
  reason: string | null;
  trigger_message_ids: string;
  created_at: number;
  finished_at: number;
  detail: string | null;
}

const COLUMNS = "reply_id, session_id, status, reason, trigger_message_ids, created_at, finished_at, detail";

/** Turn outcomes in the `turns` table, written in the database's batch of the event-loop turn. */
export class SqliteTurnStore implements TurnStore {
  readonly #writer: BatchWriter<TurnRecord>;
  readonly #selectOne: Statement<[string]>;
  readonly #selectBySession: Statement<[string, number]>;

  constructor(db: Database, logger: Logger, tick?: WriteTick) {
    const upsert = db.prepare(
      `INSERT INTO turns (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (reply_id) DO UPDATE SET
         session_id = excluded.session_id, status = excluded.status, reason = excluded.reason,
         trigger_message_ids = excluded.trigger_message_ids, created_at = excluded.created_at,
         finished_at = excluded.finished_at, detail = excluded.detail`,
    );
    const upsertAll = db.transaction((turns: readonly TurnRecord[]) => {
      for (const turn of turns) {
        upsert.run(
          turn.replyId,
          turn.sessionId,
          turn.status,
          turn.reason ?? null,
          JSON.stringify(turn.triggerMessageIds),
          turn.createdAt,
          turn.finishedAt,
          turn.detail === undefined ? null : JSON.stringify(turn.detail),
        );
      }
    });
    this.#writer = new BatchWriter({ name: "turns", writeBatch: upsertAll, logger, tick });
    this.#selectOne = db.prepare(`SELECT ${COLUMNS} FROM turns WHERE reply_id = ?`);
    this.#selectBySession = db.prepare(
      `SELECT ${COLUMNS} FROM turns WHERE session_id = ? ORDER BY created_at DESC, reply_id DESC LIMIT ?`,
    );
  }

  record(turn: TurnRecord): void {
    this.#writer.push(turn);
  }

  /** Commits what is queued; later records throw. */
  close(): void {
    this.#writer.close();
  }

  get(replyId: string): TurnRecord | undefined {
    this.#writer.flush();
    const row = this.#selectOne.get(replyId) as TurnRow | undefined;
    return row && toTurnRecord(row);
  }

  listBySession(sessionId: string, limit: number): TurnRecord[] {
    if (limit <= 0) return [];
    this.#writer.flush();
    return (this.#selectBySession.all(sessionId, limit) as TurnRow[]).map(toTurnRecord);
  }
}

function toTurnRecord(row: TurnRow): TurnRecord {
  const turn: TurnRecord = {
    replyId: row.reply_id,
    sessionId: row.session_id,
    status: row.status as TurnStatus,
    triggerMessageIds: JSON.parse(row.trigger_message_ids) as string[],
    createdAt: row.created_at,
    finishedAt: row.finished_at,
  };
  if (row.reason !== null) turn.reason = row.reason;
  if (row.detail !== null) turn.detail = JSON.parse(row.detail) as Record<string, unknown>;
  return turn;
}
