import type { Database, Statement } from "better-sqlite3";
import type { Logger } from "../../log/logger.ts";
import type { NewSend, SendEntry, SendState, SendStore } from "../types.ts";
import { BatchWriter } from "./batch-writer.ts";
import type { WriteTick } from "./write-tick.ts";

export interface SendRow {
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

export const SEND_COLUMNS =
  "id, reply_id, session_id, target, content_hash, summary, state, platform_message_id, error, created_at, updated_at";

/**
 * The `sends` journal. A pending entry is committed before the message leaves (a crash right
 * after the send must find it); how the send ended is batched like other writes, since losing
 * that only leaves the entry in doubt, which is the safe side.
 */
export class SqliteSendStore implements SendStore {
  readonly #writer: BatchWriter<Settlement>;
  readonly #insert: Statement<[string, string, string, string, string, number, number]>;
  readonly #selectByReply: Statement<[string]>;
  readonly #deleteBefore: Statement<[number]>;

  constructor(db: Database, logger: Logger, tick: WriteTick) {
    this.#insert = db.prepare(
      `INSERT INTO sends (reply_id, session_id, target, content_hash, summary, state, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, 'pending', ?, ?)`,
    );
    const settle = db.prepare(
      "UPDATE sends SET state = ?, platform_message_id = ?, error = ?, updated_at = ? WHERE id = ?",
    );
    const settleAll = db.transaction((settlements: readonly Settlement[]) => {
      for (const s of settlements) settle.run(s.state, s.platformMessageId, s.error, s.time, s.id);
    });
    this.#writer = new BatchWriter({ name: "sends", writeBatch: settleAll, logger, tick });
    this.#selectByReply = db.prepare(`SELECT ${SEND_COLUMNS} FROM sends WHERE reply_id = ? ORDER BY id`);
    this.#deleteBefore = db.prepare("DELETE FROM sends WHERE created_at < ?");
  }

  async pending(send: NewSend): Promise<number> {
    const now = Date.now();
    const result = this.#insert.run(
      send.replyId,
      send.sessionId,
      send.target,
      send.contentHash,
      send.summary,
      now,
      now,
    );
    return Number(result.lastInsertRowid);
  }

  async sent(id: number, platformMessageId: string): Promise<void> {
    this.#writer.push({ id, state: "sent", platformMessageId, error: null, time: Date.now() });
  }

  async settleFailed(id: number, state: "failed" | "in_doubt", error: string): Promise<void> {
    this.#writer.push({ id, state, platformMessageId: null, error, time: Date.now() });
  }

  async forReply(replyId: string): Promise<SendEntry[]> {
    this.#writer.flush();
    return (this.#selectByReply.all(replyId) as SendRow[]).map(toSendEntry);
  }

  async pruneBefore(time: number): Promise<number> {
    this.#writer.flush();
    return this.#deleteBefore.run(time).changes;
  }

  /** Commits what is queued; later settlements throw. */
  async close(): Promise<void> {
    this.#writer.close();
  }
}

export function toSendEntry(row: SendRow): SendEntry {
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
