import { type FenceToken, SessionFenced } from "../session-fence.ts";
import type { NewSend, SendEntry, SendState, SendStore } from "../types.ts";
import type { RowQueue, SqlDatabase, Statement } from "./sql-database.ts";

interface SendRow {
  id: number;
  reply_id: string;
  session_id: string;
  target: string;
  content_hash: string;
  summary: string;
  state: string;
  platform_message_id: string | null;
  error: string | null;
  created_at: number;
  updated_at: number;
}

/** How a send ended, written with the database's batch of the event-loop turn. */
export interface Settlement {
  id: number;
  state: Exclude<SendState, "pending">;
  platformMessageId: string | null;
  error: string | null;
  time: number;
}

const SEND_COLUMNS =
  "id, reply_id, session_id, target, content_hash, summary, state, platform_message_id, error, created_at, updated_at";

/**
 * Records a pending send only while `fence` is its session's newest lease token; resolves with
 * its id, or undefined when the token is out of date. A backend without a cluster has none.
 */
export type FencedPending = (send: NewSend, fence: FenceToken) => Promise<number | undefined>;

/**
 * The `sends` journal. A pending entry is committed before the message leaves (a crash right
 * after the send must find it); how the send ended is batched like other writes, since losing
 * that only leaves the entry in doubt, which is the safe side.
 */
export class SqlSendStore implements SendStore {
  readonly #sql: SqlDatabase;
  readonly #settlements: RowQueue<Settlement>;
  readonly #fencedPending: FencedPending | undefined;

  /** `fencedPending`: absent on a single instance, which takes a send's lease token and ignores it. */
  constructor(sql: SqlDatabase, settlements: RowQueue<Settlement>, fencedPending?: FencedPending) {
    this.#sql = sql;
    this.#settlements = settlements;
    this.#fencedPending = fencedPending;
  }

  async pending(send: NewSend): Promise<number> {
    if (send.fence !== undefined && this.#fencedPending !== undefined) {
      const id = await this.#fencedPending(send, send.fence);
      if (id === undefined) throw new SessionFenced(send.sessionId, send.fence);
      return id;
    }
    const now = Date.now();
    const row = await this.#sql.get<{ id: number }>(
      `INSERT INTO sends (reply_id, session_id, target, content_hash, summary, state, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, 'pending', ?, ?) RETURNING id`,
      [send.replyId, send.sessionId, send.target, send.contentHash, send.summary, now, now],
    );
    if (row === undefined) throw new Error("the sends insert returned no id");
    return row.id;
  }

  async sent(id: number, platformMessageId: string): Promise<void> {
    this.#settlements.push({ id, state: "sent", platformMessageId, error: null, time: Date.now() });
  }

  async settleFailed(id: number, state: "failed" | "in_doubt", error: string): Promise<void> {
    this.#settlements.push({ id, state, platformMessageId: null, error, time: Date.now() });
  }

  async forReply(replyId: string): Promise<SendEntry[]> {
    await this.#settlements.flush();
    const rows = await this.#sql.all<SendRow>(
      `SELECT ${SEND_COLUMNS} FROM sends WHERE reply_id = ? ORDER BY id`,
      [replyId],
    );
    return rows.map(toSendEntry);
  }

  async pruneBefore(time: number): Promise<number> {
    await this.#settlements.flush();
    return this.#sql.run("DELETE FROM sends WHERE created_at < ?", [time]);
  }

  /** Commits what is queued; later settlements throw. */
  async close(): Promise<void> {
    await this.#settlements.close();
  }
}

/** Writing a settlement, for a backend that writes row by row. */
export function settlementWrites(s: Settlement): Statement[] {
  return [
    {
      sql: "UPDATE sends SET state = ?, platform_message_id = ?, error = ?, updated_at = ? WHERE id = ?",
      params: [s.state, s.platformMessageId, s.error, s.time, s.id],
    },
  ];
}

function toSendEntry(row: SendRow): SendEntry {
  const entry: SendEntry = {
    id: row.id,
    replyId: row.reply_id,
    sessionId: row.session_id,
    target: row.target,
    contentHash: row.content_hash,
    summary: row.summary,
    state: row.state as SendState,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
  if (row.platform_message_id !== null) entry.platformMessageId = row.platform_message_id;
  if (row.error !== null) entry.error = row.error;
  return entry;
}
