import type { Logger } from "../../log/logger.ts";
import { type FenceToken, SessionFenced } from "../session-fence.ts";
import {
  interruptedReason,
  TURN_COLUMNS,
  TURN_REPLACES,
  type TurnRow,
  toTurnRecord,
  turnValues,
} from "../sqlite/turn-store.ts";
import type { TurnRecord, TurnStore } from "../types.ts";
import { PgBatchWriter } from "./batch-writer.ts";
import type { PgQuery } from "./database.ts";
import { advanceFence, fenceCte } from "./session-fences.ts";
import { insertRows, rowsPerStatement } from "./values-list.ts";
import type { PgWriteTick } from "./write-tick.ts";

/**
 * Turns in the `turns` table. A turn's end is written in the database's batch of the
 * event-loop turn; its start is committed at once (`begin`), with that batch, so a crash
 * cannot lose it nor the messages that triggered it.
 */
export class PgTurnStore implements TurnStore {
  readonly #writer: PgBatchWriter<TurnRecord>;

  constructor(
    private readonly db: PgQuery,
    logger: Logger,
    private readonly tick: PgWriteTick,
  ) {
    this.#writer = new PgBatchWriter({
      name: "turns",
      writeBatch: upsertTurns,
      logger,
      tick,
      oneStatement: writtenByOneStatement,
    });
  }

  async begin(turn: TurnRecord, fence?: FenceToken): Promise<void> {
    // Everything queued first (the trigger messages among it) commits in the same transaction:
    // a running turn in the database can always be run again from its stored messages.
    await this.tick.commitWith(
      (tx) => (fence === undefined ? upsertTurns(tx, [turn]) : beginFenced(tx, turn, fence)),
      { oneStatement: writtenByOneStatement([turn]) },
    );
  }

  advanceFence(sessionId: string, fence: FenceToken): Promise<void> {
    return advanceFence(this.db, sessionId, fence);
  }

  async record(turn: TurnRecord): Promise<void> {
    this.#writer.push(turn);
  }

  /** Commits what is queued; later records throw. */
  async close(): Promise<void> {
    await this.#writer.close();
  }

  async get(replyId: string): Promise<TurnRecord | undefined> {
    await this.#writer.flush();
    const [row] = await this.db.query<TurnRow>(`SELECT ${TURN_COLUMNS} FROM turns WHERE reply_id = $1`, [
      replyId,
    ]);
    return row && toTurnRecord(row);
  }

  async listBySession(sessionId: string, limit: number): Promise<TurnRecord[]> {
    if (limit <= 0) return [];
    await this.#writer.flush();
    const rows = await this.db.query<TurnRow>(
      `SELECT ${TURN_COLUMNS} FROM turns WHERE session_id = $1
       ORDER BY created_at DESC, reply_id COLLATE "C" DESC LIMIT $2`,
      [sessionId, limit],
    );
    return rows.map(toTurnRecord);
  }

  async running(): Promise<TurnRecord[]> {
    await this.#writer.flush();
    const rows = await this.db.query<TurnRow>(
      `SELECT ${TURN_COLUMNS} FROM turns WHERE status = 'running' ORDER BY created_at, reply_id COLLATE "C"`,
    );
    return rows.map(toTurnRecord);
  }
}

/** The types of a turn's values (TURN_COLUMNS order): selected rather than inserted as VALUES, they need them spelled out. */
const TURN_CASTS = [
  ...["::text", "::text", "::text", "::text", "::text", "::text", "::text", "::text"],
  ...["::bigint", "::bigint", "::text", "::text", "::integer"],
];

/**
 * Upserts a running turn in one statement that also checks and records its session's lease
 * token (see fenceCte): refused, nothing is written and it rejects with SessionFenced.
 */
async function beginFenced(tx: PgQuery, turn: TurnRecord, fence: FenceToken): Promise<void> {
  const columns = TURN_CASTS.map((cast, index) => `$${index + 3}${cast}`).join(", ");
  const written = await tx.query(
    `WITH ${fenceCte(1, 2)}
     INSERT INTO turns (${TURN_COLUMNS}) SELECT ${columns} FROM fence ${TURN_REPLACES} RETURNING 1`,
    [turn.sessionId, fence, ...turnValues(turn)],
    "turn-begin-fenced",
  );
  if (written.length === 0) throw new SessionFenced(turn.sessionId, fence);
  await interruptRerun(tx, turn);
}

/** Whether `upsertTurns` writes these turns with one statement: none runs an earlier one again. */
function writtenByOneStatement(turns: readonly TurnRecord[]): boolean {
  return (
    turns.length <= rowsPerStatement(TURN_COLUMNS.split(",").length) &&
    turns.every((turn) => turn.recoveredFrom === undefined)
  );
}

/**
 * Upserts turns, then marks the turns they run again interrupted. One statement cannot update
 * a row twice, so of a turn recorded twice in the batch only the later record is written (it
 * replaces the earlier one anyway).
 */
async function upsertTurns(tx: PgQuery, turns: readonly TurnRecord[]): Promise<void> {
  const latest = [...new Map(turns.map((turn) => [turn.replyId, turn])).values()];
  await insertRows(tx, "turns", TURN_COLUMNS, latest, turnValues, TURN_REPLACES);
  for (const turn of latest) await interruptRerun(tx, turn);
}

/** Marks the turn that `turn` runs again (if it runs one) interrupted. */
async function interruptRerun(tx: PgQuery, turn: TurnRecord): Promise<void> {
  if (turn.recoveredFrom === undefined) return;
  await tx.query(
    "UPDATE turns SET status = 'interrupted', reason = $1, finished_at = $2 WHERE reply_id = $3 AND status = 'running'",
    [interruptedReason(turn), turn.createdAt, turn.recoveredFrom],
  );
}
