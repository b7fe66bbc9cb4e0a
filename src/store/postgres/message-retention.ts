import { type RetentionSteps, STEP_ROWS } from "../message-retention.ts";
import type { PgDatabase } from "./database.ts";
import { isPgUnavailable } from "./storage-errors.ts";

/** Retention's deletions on a PostgreSQL database, each step one short transaction. */
export function pgRetentionSteps(db: PgDatabase): RetentionSteps {
  return {
    pruneAge: (cutoff) =>
      db.transaction(async (tx) => {
        const [first] = await tx.query<{ id: number | null }>("SELECT MIN(id) AS id FROM messages");
        if (first?.id == null) return 0;
        const range = [first.id, first.id + STEP_ROWS, cutoff];
        const gone = await tx.query<{ session_id: string; n: number }>(
          `WITH gone AS (DELETE FROM messages WHERE id >= $1 AND id < $2 AND time < $3 RETURNING session_id)
           SELECT session_id, COUNT(*) AS n FROM gone GROUP BY session_id`,
          range,
        );
        for (const { session_id, n } of gone) await uncount(tx, session_id, n);
        await tx.query("DELETE FROM chat_sessions WHERE message_count <= 0");
        return gone.reduce((sum, { n }) => sum + n, 0);
      }),
    overCap: async (limit) => {
      const [row] = await db.query<{ session_id: string; message_count: number }>(
        "SELECT session_id, message_count FROM chat_sessions WHERE message_count > $1 LIMIT 1",
        [limit],
      );
      return row && { sessionId: row.session_id, count: row.message_count };
    },
    pruneSession: (sessionId, rows) =>
      db.transaction(async (tx) => {
        const [row] = await tx.query<{ deleted: number }>(
          `WITH gone AS (
             DELETE FROM messages WHERE id IN
               (SELECT id FROM messages WHERE session_id = $1 ORDER BY id LIMIT $2)
             RETURNING 1
           )
           SELECT COUNT(*) AS deleted FROM gone`,
          [sessionId, Math.min(rows, STEP_ROWS)],
        );
        const deleted = row?.deleted ?? 0;
        // A count above the rows there are would otherwise keep this chat "over its cap" forever.
        if (deleted === 0) {
          await tx.query(
            "UPDATE chat_sessions SET message_count = (SELECT COUNT(*) FROM messages WHERE session_id = $1) WHERE session_id = $1",
            [sessionId],
          );
        } else await uncount(tx, sessionId, deleted);
        return deleted;
      }),
    trimQuarantine: async (kept) => {
      await db.query("DELETE FROM quarantine WHERE id <= (SELECT MAX(id) FROM quarantine) - $1", [kept]);
    },
    isUnavailable: isPgUnavailable,
  };
}

async function uncount(tx: Pick<PgDatabase, "query">, sessionId: string, count: number): Promise<void> {
  await tx.query("UPDATE chat_sessions SET message_count = message_count - $1 WHERE session_id = $2", [
    count,
    sessionId,
  ]);
}
