import type { Logger } from "../../log/logger.ts";
import { SessionFenced } from "../session-fence.ts";
import { SEND_COLUMNS, type SendRow, type Settlement, toSendEntry } from "../sqlite/send-store.ts";
import type { NewSend, SendEntry, SendStore } from "../types.ts";
import { PgBatchWriter } from "./batch-writer.ts";
import type { PgQuery } from "./database.ts";
import { fenceCte } from "./session-fences.ts";
import { rowsPerStatement, statementChunks, valuesList } from "./values-list.ts";
import type { PgWriteTick } from "./write-tick.ts";

/** The types of a settlement's values: VALUES used as a table needs them spelled out. */
const SETTLEMENT_CASTS = ["::bigint", "::text", "::text", "::text", "::bigint"];

/**
 * The `sends` journal. A pending entry is committed before the message leaves (a crash right
 * after the send must find it); how the send ended is batched like other writes, since losing
 * that only leaves the entry in doubt, which is the safe side.
 */
export class PgSendStore implements SendStore {
  readonly #writer: PgBatchWriter<Settlement>;

  constructor(
    private readonly db: PgQuery,
    logger: Logger,
    tick: PgWriteTick,
  ) {
    this.#writer = new PgBatchWriter({
      name: "sends",
      writeBatch: settle,
      logger,
      tick,
      oneStatement: (rows) => rows.length <= rowsPerStatement(SETTLEMENT_CASTS.length),
    });
  }

  async pending(send: NewSend): Promise<number> {
    const now = Date.now();
    const values = [send.replyId, send.sessionId, send.target, send.contentHash, send.summary, now];
    const [row] =
      send.fence === undefined
        ? await this.db.query<{ id: number }>(
            `INSERT INTO sends (reply_id, session_id, target, content_hash, summary, state, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, 'pending', $6, $6) RETURNING id`,
            values,
            "send-pending",
          )
        : // Checked against the session's newest lease token in the same statement (see fenceCte).
          await this.db.query<{ id: number }>(
            `WITH ${fenceCte(2, 7)}
             INSERT INTO sends (reply_id, session_id, target, content_hash, summary, state, created_at, updated_at)
             SELECT $1::text, $2::text, $3::text, $4::text, $5::text, 'pending', $6::bigint, $6::bigint FROM fence
             RETURNING id`,
            [...values, send.fence],
            "send-pending-fenced",
          );
    if (row === undefined) {
      if (send.fence !== undefined) throw new SessionFenced(send.sessionId, send.fence);
      throw new Error("the sends insert returned no id");
    }
    return row.id;
  }

  async sent(id: number, platformMessageId: string): Promise<void> {
    this.#writer.push({ id, state: "sent", platformMessageId, error: null, time: Date.now() });
  }

  async settleFailed(id: number, state: "failed" | "in_doubt", error: string): Promise<void> {
    this.#writer.push({ id, state, platformMessageId: null, error, time: Date.now() });
  }

  async forReply(replyId: string): Promise<SendEntry[]> {
    await this.#writer.flush();
    const rows = await this.db.query<SendRow>(
      `SELECT ${SEND_COLUMNS} FROM sends WHERE reply_id = $1 ORDER BY id`,
      [replyId],
    );
    return rows.map(toSendEntry);
  }

  async pruneBefore(time: number): Promise<number> {
    await this.#writer.flush();
    const [row] = await this.db.query<{ deleted: number }>(
      "WITH gone AS (DELETE FROM sends WHERE created_at < $1 RETURNING 1) SELECT COUNT(*) AS deleted FROM gone",
      [time],
    );
    return row?.deleted ?? 0;
  }

  /** Commits what is queued; later settlements throw. */
  async close(): Promise<void> {
    await this.#writer.close();
  }
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
