import type { Database, Statement } from "better-sqlite3";
import type { Logger } from "../../log/logger.ts";
import type { ChatMessage, PokeNotice } from "../../message/inbound.ts";
import type { Segment } from "../../message/segment.ts";
import type { ChatType } from "../../message/session-id.ts";
import type {
  ChatHistory,
  HistoryQuery,
  MessageQuery,
  MessageStore,
  SessionQuery,
  SessionSummary,
  StoredMessage,
} from "../types.ts";
import { BatchWriter } from "./batch-writer.ts";
import type { WriteTick } from "./write-tick.ts";

export interface MessageRow {
  id: number;
  platform: string;
  adapter_id: string;
  self_id: string;
  session_id: string;
  chat_type: string;
  group_id: string | null;
  user_id: string;
  sender_name: string;
  message_id: string;
  segments: string;
  time: number;
  from_self: number;
  recalled_at: number | null;
  notice: string | null;
}

export const MESSAGE_COLUMNS =
  "id, platform, adapter_id, self_id, session_id, chat_type, group_id, user_id, sender_name, message_id, segments, time, from_self, recalled_at, notice";

/** The columns `messageValues` gives values for. */
export const MESSAGE_INSERT_COLUMNS = MESSAGE_COLUMNS.replace("id, ", "");

/** Larger than any row id, for "no upper bound" in paging queries. */
const NO_ROW_LIMIT = Number.MAX_SAFE_INTEGER;

export interface MessageStoreOptions {
  /** Messages that may go first when the spool is full: those that triggered nothing. */
  expendable?: (message: ChatMessage) => boolean;
}

/**
 * Messages in the `messages` table; appends are committed in one transaction per event-loop
 * turn, which also keeps each chat's row in `chat_sessions` (newest message, count) current.
 * Messages not yet committed (the spool, while the database cannot be written) are part of
 * what `recent` and `findByMessageId` return, so the bot's own context never misses them.
 */
export class SqliteMessageStore implements MessageStore, ChatHistory {
  readonly #writer: BatchWriter<ChatMessage>;
  readonly #selectRecent: Statement<[string, number]>;
  readonly #selectByMessageId: Statement<[string, string]>;
  readonly #selectSessions: Statement<[{ search: string | null; limit: number }]>;
  readonly #selectAllMessages: Statement<[{ search: string | null; before: number; limit: number }]>;
  readonly #selectSessionMessages: Statement<
    [{ session: string; search: string | null; before: number; limit: number }]
  >;
  readonly #markRecalled: Statement<[number, string, string]>;

  constructor(db: Database, logger: Logger, tick: WriteTick, options: MessageStoreOptions = {}) {
    const insert = db.prepare(
      `INSERT INTO messages (${MESSAGE_INSERT_COLUMNS})
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const countSession = db.prepare(
      `INSERT INTO chat_sessions (session_id, last_id, message_count) VALUES (?, ?, ?)
       ON CONFLICT (session_id) DO UPDATE SET
         last_id = excluded.last_id, message_count = chat_sessions.message_count + excluded.message_count`,
    );
    const insertAll = db.transaction((messages: readonly ChatMessage[]) => {
      const added = new Map<string, { lastId: number; count: number }>();
      for (const message of messages) {
        const { lastInsertRowid } = insert.run(...messageValues(message));
        const session = added.get(message.sessionId);
        added.set(message.sessionId, { lastId: Number(lastInsertRowid), count: (session?.count ?? 0) + 1 });
      }
      for (const [sessionId, { lastId, count }] of added) countSession.run(sessionId, lastId, count);
    });
    this.#writer = new BatchWriter({
      name: "messages",
      writeBatch: insertAll,
      logger,
      tick,
      expendable: options.expendable,
    });
    this.#selectRecent = db.prepare(
      `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE session_id = ? ORDER BY id DESC LIMIT ?`,
    );
    this.#selectByMessageId = db.prepare(
      `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE session_id = ? AND message_id = ? ORDER BY id DESC LIMIT 1`,
    );
    this.#selectSessions = db.prepare(
      `SELECT ${MESSAGE_COLUMNS.replace(/(\w+)/g, "m.$1")}, s.message_count
       FROM chat_sessions s JOIN messages m ON m.id = s.last_id
       WHERE @search IS NULL OR s.session_id LIKE '%' || @search || '%' ESCAPE '\\'
       ORDER BY s.last_id DESC LIMIT @limit`,
    );
    // Two statements, not one with "@session IS NULL OR …": the planner can only use the
    // (session_id, id) index when the session is a plain equality.
    this.#selectAllMessages = db.prepare(
      `SELECT ${MESSAGE_COLUMNS} FROM messages
       WHERE id < @before AND (@search IS NULL OR segments LIKE '%' || @search || '%' ESCAPE '\\')
       ORDER BY id DESC LIMIT @limit`,
    );
    this.#selectSessionMessages = db.prepare(
      `SELECT ${MESSAGE_COLUMNS} FROM messages
       WHERE session_id = @session AND id < @before
         AND (@search IS NULL OR segments LIKE '%' || @search || '%' ESCAPE '\\')
       ORDER BY id DESC LIMIT @limit`,
    );
    this.#markRecalled = db.prepare(
      "UPDATE messages SET recalled_at = ? WHERE session_id = ? AND message_id = ? AND recalled_at IS NULL",
    );
  }

  append(message: ChatMessage): void {
    this.#writer.push(message);
  }

  async recent(query: HistoryQuery): Promise<ChatMessage[]> {
    if (query.limit <= 0) return [];
    this.#writer.flush();
    const spooled = this.#writer.pending().filter((message) => message.sessionId === query.sessionId);
    const stored = spooled.length >= query.limit ? [] : this.#storedRecent(query.sessionId, query.limit);
    return [...stored, ...spooled].slice(-query.limit);
  }

  /** The newest stored message with this platform id in the session. */
  async findByMessageId(sessionId: string, messageId: string): Promise<ChatMessage | undefined> {
    this.#writer.flush();
    const spooled = this.#writer
      .pending()
      .findLast((message) => message.sessionId === sessionId && message.messageId === messageId);
    if (spooled) return spooled;
    const row = this.#selectByMessageId.get(sessionId, messageId) as MessageRow | undefined;
    return row && toStoredMessage(row);
  }

  async sessions(query: SessionQuery): Promise<SessionSummary[]> {
    this.#writer.flush();
    const search = query.search ? escapeLike(query.search) : null;
    const rows = this.#selectSessions.all({ search, limit: query.limit }) as Array<
      MessageRow & { message_count: number }
    >;
    return rows.map(toSessionSummary);
  }

  async messages(query: MessageQuery): Promise<StoredMessage[]> {
    this.#writer.flush();
    // Segments are stored as JSON, where quotes and backslashes in text are escaped.
    const search = query.search ? escapeLike(JSON.stringify(query.search).slice(1, -1)) : null;
    const page = { search, before: query.beforeRowId ?? NO_ROW_LIMIT, limit: query.limit };
    const rows =
      query.sessionId === undefined
        ? this.#selectAllMessages.all(page)
        : this.#selectSessionMessages.all({ ...page, session: query.sessionId });
    return (rows as MessageRow[]).map(toStoredMessage);
  }

  async markRecalled(sessionId: string, messageId: string, at: number): Promise<number> {
    this.#writer.flush();
    const spooled = markSpooledRecalled(this.#writer.pending(), sessionId, messageId, at);
    return spooled + this.#markRecalled.run(at, sessionId, messageId).changes;
  }

  async flush(): Promise<void> {
    this.#writer.flush();
  }

  /** Commits what is queued; later appends throw. The database stays open (its owner closes it). */
  async close(): Promise<void> {
    this.#writer.close();
  }

  #storedRecent(sessionId: string, limit: number): StoredMessage[] {
    const newestFirst = this.#selectRecent.all(sessionId, limit) as MessageRow[];
    return newestFirst.reverse().map(toStoredMessage);
  }
}

/** A message's column values, in MESSAGE_COLUMNS order without the row id. */
export function messageValues(message: ChatMessage): unknown[] {
  return [
    message.platform,
    message.adapterId,
    message.selfId,
    message.sessionId,
    message.chatType,
    message.groupId ?? null,
    message.userId,
    message.senderName,
    message.messageId,
    JSON.stringify(message.segments),
    message.time,
    message.fromSelf ? 1 : 0,
    message.recalledAt ?? null,
    message.notice === undefined ? null : JSON.stringify(message.notice),
  ];
}

/**
 * Marks the not yet committed messages with this id recalled, so they are written that way;
 * returns how many.
 */
export function markSpooledRecalled(
  spooled: readonly ChatMessage[],
  sessionId: string,
  messageId: string,
  at: number,
): number {
  let marked = 0;
  for (const message of spooled) {
    if (message.sessionId !== sessionId || message.messageId !== messageId || message.recalledAt) continue;
    message.recalledAt = at;
    marked++;
  }
  return marked;
}

/** A `sessions` row: the session's newest message and how many it holds. */
export function toSessionSummary(row: MessageRow & { message_count: number }): SessionSummary {
  return {
    sessionId: row.session_id,
    platform: row.platform,
    chatType: row.chat_type,
    messageCount: row.message_count,
    last: toStoredMessage(row),
  };
}

export function toStoredMessage(row: MessageRow): StoredMessage {
  const message: StoredMessage = {
    rowId: row.id,
    platform: row.platform,
    adapterId: row.adapter_id,
    selfId: row.self_id,
    sessionId: row.session_id,
    chatType: row.chat_type as ChatType,
    userId: row.user_id,
    senderName: row.sender_name,
    messageId: row.message_id,
    segments: JSON.parse(row.segments) as Segment[],
    time: row.time,
    fromSelf: row.from_self === 1,
  };
  if (row.group_id !== null) message.groupId = row.group_id;
  if (row.recalled_at !== null) message.recalledAt = Number(row.recalled_at);
  if (row.notice !== null) message.notice = JSON.parse(row.notice) as PokeNotice;
  return message;
}

export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (character) => `\\${character}`);
}
