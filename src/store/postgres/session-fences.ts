import { type FenceToken, SessionFenced } from "../session-fence.ts";
import type { PgQuery } from "./database.ts";

/**
 * A common table expression `fence` that records `$<token>` as the session's newest lease token
 * unless a newer one is recorded: it holds one row when the step carrying that token may go
 * ahead, none when another instance took the session since. A statement doing its write
 * `FROM fence` (or `WHERE EXISTS (SELECT 1 FROM fence)`) is thereby refused in the same
 * statement, and the session's row lock orders it against the newer holder's writes.
 */
export function fenceCte(sessionParam: number, tokenParam: number): string {
  return `fence AS (
    INSERT INTO session_fences AS held (session_id, token) VALUES ($${sessionParam}, $${tokenParam})
    ON CONFLICT (session_id) DO UPDATE SET token = excluded.token WHERE held.token <= excluded.token
    RETURNING 1)`;
}

/** Records that an instance took the session with `fence`; rejects with SessionFenced when a newer token is recorded. */
export async function advanceFence(db: PgQuery, sessionId: string, fence: FenceToken): Promise<void> {
  const rows = await db.query(`WITH ${fenceCte(1, 2)} SELECT 1 FROM fence`, [sessionId, fence]);
  if (rows.length === 0) throw new SessionFenced(sessionId, fence);
}
