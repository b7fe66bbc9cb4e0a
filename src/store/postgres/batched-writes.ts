import type { Logger } from "../../log/logger.ts";
import { type FenceToken, SessionFenced } from "../session-fence.ts";
import type { FencedPending, Settlement } from "../sql/send-store.ts";
import {
  interruptionOf,
  TURN_COLUMNS,
  TURN_REPLACES,
  type TurnStart,
  turnValues,
} from "../sql/turn-store.ts";
import { USAGE_COLUMNS, usageValues } from "../sql/usage-store.ts";
import type { TurnRecord, UsageRecord } from "../types.ts";
import { PgBatchWriter } from "./batch-writer.ts";
import type { PgQuery } from "./pg-query.ts";
import { pgStatement } from "./pg-sql.ts";
import { advanceFence, fenceCte } from "./session-fences.ts";
import { insertRows, rowsPerStatement, statementChunks, valuesList } from "./values-list.ts";
import type { PgWriteTick } from "./write-tick.ts";

/**
 * What PostgreSQL writes its own way for the backend-neutral stores: batches as multi-row
 * statements (one round trip for many rows), and a turn's start and a send's pending entry
 * checked against the session's lease token in the same statement (see fenceCte).
 */

/**
 * How long usage records gather before they are committed together. Each turn makes two model
 * calls: committed at once, each record was a commit of its own, and the turn's next commit
 * waited behind it. Nothing on a turn's path reads them back (token budgets count records in
 * memory as they are made; the store's reads commit what is queued first).
 */
const USAGE_WRITE_DELAY_MS = 100;

/** The usage store's queue: records inserted many rows per statement. */
export function pgUsageQueue(logger: Logger, tick: PgWriteTick): PgBatchWriter<UsageRecord> {
  return new PgBatchWriter({
    name: "llm_usage",
    writeBatch: (tx, records) => insertRows(tx, "llm_usage", USAGE_COLUMNS, records, usageValues),
    logger,
    tick,
    delayMs: USAGE_WRITE_DELAY_MS,
    oneStatement: (rows) => rows.length <= rowsPerStatement(USAGE_COLUMNS.split(",").length),
  });
}

/** The types of a settlement's values: VALUES used as a table needs them spelled out. */
const SETTLEMENT_CASTS = ["::bigint", "::text", "::text", "::text", "::bigint"];

/** The send store's queue of settlements: many sends updated per statement. */
export function pgSettlementQueue(logger: Logger, tick: PgWriteTick): PgBatchWriter<Settlement> {
  return new PgBatchWriter({
    name: "sends",
    writeBatch: settle,
    logger,
    tick,
    oneStatement: (rows) => rows.length <= rowsPerStatement(SETTLEMENT_CASTS.length),
  });
}

/** Settles sends, one statement per chunk; of a send settled twice in the batch the later settlement counts. */
async function settle(tx: PgQuery, settlements: readonly Settlement[]): Promise<void> {
  const latest = [...new Map(settlements.map((s) => [s.id, s])).values()];
  for (const chunk of statementChunks(latest, SETTLEMENT_CASTS.length)) {
    await tx.query(
      `UPDATE sends SET state = v.state, platform_message_id = v.platform_message_id, error = v.error,
         updated_at = v.time
       FROM (VALUES ${valuesList(chunk.length, SETTLEMENT_CASTS)}) AS v (id, state, platform_message_id, error, time)
       WHERE sends.id = v.id`,
      chunk.flatMap((s) => [s.id, s.state, s.platformMessageId, s.error, s.time]),
    );
  }
}

/** A pending send checked against its session's newest lease token in the same statement. */
export function pgFencedPending(db: PgQuery): FencedPending {
  return async (send, fence) => {
    const [row] = await db.query<{ id: number }>(
      `WITH ${fenceCte(2, 7)}
       INSERT INTO sends (reply_id, session_id, target, content_hash, summary, state, created_at, updated_at)
       SELECT $1::text, $2::text, $3::text, $4::text, $5::text, 'pending', $6::bigint, $6::bigint FROM fence
       RETURNING id`,
      [send.replyId, send.sessionId, send.target, send.contentHash, send.summary, Date.now(), fence],
      "send-pending-fenced",
    );
    return row?.id;
  };
}

/** The turn store's queue: turns upserted many rows per statement. */
export function pgTurnQueue(logger: Logger, tick: PgWriteTick): PgBatchWriter<TurnRecord> {
  return new PgBatchWriter({
    name: "turns",
    writeBatch: upsertTurns,
    logger,
    tick,
    oneStatement: writtenByOneStatement,
  });
}

/**
 * A turn starts in the tick's commit: everything queued first (the trigger messages among it)
 * commits in the same transaction, so a running turn in the database can always be run again
 * from its stored messages.
 */
export function pgTurnStart(db: PgQuery, tick: PgWriteTick): TurnStart {
  return {
    begin: (turn, fence) =>
      tick.commitWith(
        (tx) => (fence === undefined ? upsertTurns(tx, [turn]) : beginFenced(tx, turn, fence)),
        {
          oneStatement: writtenByOneStatement([turn]),
        },
      ),
    advanceFence: (sessionId, fence) => advanceFence(db, sessionId, fence),
  };
}

/** The types of a turn's values (TURN_COLUMNS order): selected rather than inserted as VALUES, they need them spelled out. */
const TURN_CASTS = [
  ...["::text", "::text", "::text", "::text", "::text", "::text", "::text", "::text"],
  ...["::bigint", "::bigint", "::text", "::text", "::integer"],
];

/**
 * Upserts a running turn in one statement that also checks and records its session's lease
 * token: refused, nothing is written and it rejects with SessionFenced.
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
  for (const { sql, params } of interruptionOf(turn)) {
    const { text, name } = pgStatement(sql);
    await tx.query(text, [...params], name);
  }
}
