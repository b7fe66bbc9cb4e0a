import type { Database } from "better-sqlite3";
import { type RetentionSteps, STEP_ROWS } from "../message-retention.ts";
import { isStorageUnavailable } from "./storage-errors.ts";

/** Retention's deletions on a SQLite database (the driver is synchronous: each step is one short transaction). */
export function sqliteRetentionSteps(db: Database): RetentionSteps {
  const selectFirstId = db.prepare<[], { id: number | null }>("SELECT MIN(id) AS id FROM messages");
  const countOldInRange = db.prepare<[number, number, number], { session_id: string; n: number }>(
    "SELECT session_id, COUNT(*) AS n FROM messages WHERE id >= ? AND id < ? AND time < ? GROUP BY session_id",
  );
  const deleteOldInRange = db.prepare("DELETE FROM messages WHERE id >= ? AND id < ? AND time < ?");
  const selectOverCap = db.prepare<[number], { session_id: string; message_count: number }>(
    "SELECT session_id, message_count FROM chat_sessions WHERE message_count > ? LIMIT 1",
  );
  const deleteOldestOfSession = db.prepare(
    `DELETE FROM messages WHERE session_id = ? AND id IN
       (SELECT id FROM messages WHERE session_id = ? ORDER BY id LIMIT ?)`,
  );
  const uncount = db.prepare(
    "UPDATE chat_sessions SET message_count = message_count - ? WHERE session_id = ?",
  );
  const recount = db.prepare(
    "UPDATE chat_sessions SET message_count = (SELECT COUNT(*) FROM messages WHERE session_id = ?) WHERE session_id = ?",
  );
  const forgetEmptySessions = db.prepare("DELETE FROM chat_sessions WHERE message_count <= 0");
  const trimQuarantine = db.prepare(
    "DELETE FROM quarantine WHERE id <= (SELECT MAX(id) FROM quarantine) - ?",
  );
  const pruneAge = db.transaction((cutoff: number) => {
    const first = selectFirstId.get()?.id ?? null;
    if (first === null) return 0;
    const range = [first, first + STEP_ROWS, cutoff] as const;
    for (const { session_id, n } of countOldInRange.all(...range)) uncount.run(n, session_id);
    forgetEmptySessions.run();
    return deleteOldInRange.run(...range).changes;
  });
  const pruneSession = db.transaction((sessionId: string, rows: number) => {
    const deleted = deleteOldestOfSession.run(sessionId, sessionId, Math.min(rows, STEP_ROWS)).changes;
    // A count above the rows there are would otherwise keep this chat "over its cap" forever.
    if (deleted === 0) recount.run(sessionId, sessionId);
    else uncount.run(deleted, sessionId);
    return deleted;
  });
  return {
    pruneAge: async (cutoff) => pruneAge(cutoff),
    overCap: async (limit) => {
      const row = selectOverCap.get(limit);
      return row && { sessionId: row.session_id, count: row.message_count };
    },
    pruneSession: async (sessionId, rows) => pruneSession(sessionId, rows),
    trimQuarantine: async (kept) => {
      trimQuarantine.run(kept);
    },
    isUnavailable: isStorageUnavailable,
  };
}
