import type { Logger } from "../../log/logger.ts";
import type { ChatMessage } from "../../message/inbound.ts";
import { messageKey } from "../recent-cache.ts";
import {
  escapeLike,
  MESSAGE_COLUMNS,
  MESSAGE_INSERT_COLUMNS,
  type MessageRow,
  type MessageStoreOptions,
  markSpooledRecalled,
  messageValues,
  toSessionSummary,
  toStoredMessage,
} from "../sqlite/message-store.ts";
import type {
  ChatHistory,
  HistoryQuery,
  MessageQuery,
  MessageStore,
  SessionQuery,
  SessionSummary,
  StoredMessage,
} from "../types.ts";
import { PgBatchWriter } from "./batch-writer.ts";
import type { PgQuery } from "./pg-query.ts";
import { rowsPerStatement, statementChunks, uncast, valuesList } from "./values-list.ts";
import type { PgWriteTick } from "./write-tick.ts";

const INSERT_COLUMN_COUNT = MESSAGE_INSERT_COLUMNS.split(",").length;

/**
 * Messages in the `messages` table; appends are committed in one transaction per event-loop
 * turn, which also keeps each chat's row in `chat_sessions` (newest message, count) current.
 * Messages not yet committed (the spool, while the database cannot be written) are part of
 * what `recent` and `findByMessageId` return, so the bot's own context never misses them.
 */
export class PgMessageStore implements MessageStore, ChatHistory {
  readonly #writer: PgBatchWriter<ChatMessage>;

  constructor(
    private readonly db: PgQuery,
    logger: Logger,
    tick: PgWriteTick,
    options: MessageStoreOptions = {},
  ) {
    this.#writer = new PgBatchWriter({
      name: "messages",
      writeBatch: insertMessages,
      logger,
      tick,
      expendable: options.expendable,
      oneStatement: (rows) => rows.length <= rowsPerStatement(INSERT_COLUMN_COUNT),
    });
  }

  append(message: ChatMessage): void {
    this.#writer.push(message);
  }

  async recent(query: HistoryQuery): Promise<ChatMessage[]> {
    if (query.limit <= 0) return [];
    await this.#writer.flush();
    const spooled = this.#writer.pending().filter((message) => message.sessionId === query.sessionId);
    if (spooled.length >= query.limit) return spooled.slice(-query.limit);
    const newestFirst = await this.db.query<MessageRow>(
      `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE session_id = $1 ORDER BY id DESC LIMIT $2`,
      [query.sessionId, query.limit],
    );
    const stored = newestFirst.reverse().map(toStoredMessage);
    // A retry may have committed spooled messages while the query ran: keep each once.
    const storedKeys = new Set(stored.map(messageKey));
    const stillSpooled = spooled.filter((message) => !storedKeys.has(messageKey(message)));
    return [...stored, ...stillSpooled].slice(-query.limit);
  }

  /** The newest stored message with this platform id in the session. */
  async findByMessageId(sessionId: string, messageId: string): Promise<ChatMessage | undefined> {
    await this.#writer.flush();
    const spooled = this.#writer
      .pending()
      .findLast((message) => message.sessionId === sessionId && message.messageId === messageId);
    if (spooled) return spooled;
    const [row] = await this.db.query<MessageRow>(
      `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE session_id = $1 AND message_id = $2 ORDER BY id DESC LIMIT 1`,
      [sessionId, messageId],
    );
    return row && toStoredMessage(row);
  }

  async sessions(query: SessionQuery): Promise<SessionSummary[]> {
    await this.#writer.flush();
    const search = query.search ? escapeLike(query.search) : null;
    const rows = await this.db.query<MessageRow & { message_count: number }>(
      `SELECT ${MESSAGE_COLUMNS.replace(/(\w+)/g, "m.$1")}, s.message_count
       FROM chat_sessions s JOIN messages m ON m.id = s.last_id
       WHERE $1::text IS NULL OR s.session_id ILIKE '%' || $1 || '%' ESCAPE '\\'
       ORDER BY s.last_id DESC LIMIT $2`,
      [search, query.limit],
    );
    return rows.map(toSessionSummary);
  }

  async messages(query: MessageQuery): Promise<StoredMessage[]> {
    await this.#writer.flush();
    // Segments are stored as JSON, where quotes and backslashes in text are escaped.
    const search = query.search ? escapeLike(JSON.stringify(query.search).slice(1, -1)) : null;
    const before = query.beforeRowId ?? null;
    // Two statements, not one with "$session IS NULL OR …": the planner can only use the
    // (session_id, id) index when the session is a plain equality.
    const filters = `($1::bigint IS NULL OR id < $1) AND ($2::text IS NULL OR segments ILIKE '%' || $2 || '%' ESCAPE '\\')`;
    const rows =
      query.sessionId === undefined
        ? await this.db.query<MessageRow>(
            `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE ${filters} ORDER BY id DESC LIMIT $3`,
            [before, search, query.limit],
          )
        : await this.db.query<MessageRow>(
            `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE session_id = $4 AND ${filters}
             ORDER BY id DESC LIMIT $3`,
            [before, search, query.limit, query.sessionId],
          );
    return rows.map(toStoredMessage);
  }

  async markRecalled(sessionId: string, messageId: string, at: number): Promise<number> {
    await this.#writer.flush();
    const spooled = markSpooledRecalled(this.#writer.pending(), sessionId, messageId, at);
    const updated = await this.db.query<{ id: number }>(
      `UPDATE messages SET recalled_at = $1 WHERE session_id = $2 AND message_id = $3 AND recalled_at IS NULL
       RETURNING id`,
      [at, sessionId, messageId],
    );
    return spooled + updated.length;
  }

  async flush(): Promise<void> {
    await this.#writer.flush();
  }

  /** Commits what is queued; later appends throw. The database stays open (its owner closes it). */
  async close(): Promise<void> {
    await this.#writer.close();
  }
}

/**
 * Inserts messages and counts them into `chat_sessions`, one statement per chunk. Row ids of
 * concurrent writers (a cluster) may commit out of order, so a chat's newest row is the larger one;
 * sessions are locked in one order (by id), so two instances' batches never deadlock on them.
 */
async function insertMessages(tx: PgQuery, messages: readonly ChatMessage[]): Promise<void> {
  for (const chunk of statementChunks(messages, INSERT_COLUMN_COUNT)) {
    await tx.query(
      `WITH inserted AS (
         INSERT INTO messages (${MESSAGE_INSERT_COLUMNS})
         VALUES ${valuesList(chunk.length, uncast(INSERT_COLUMN_COUNT))}
         RETURNING id, session_id
       )
       INSERT INTO chat_sessions (session_id, last_id, message_count)
       SELECT session_id, MAX(id), COUNT(*) FROM inserted GROUP BY session_id ORDER BY session_id
       ON CONFLICT (session_id) DO UPDATE SET
         last_id = GREATEST(chat_sessions.last_id, excluded.last_id),
         message_count = chat_sessions.message_count + excluded.message_count`,
      chunk.flatMap(messageValues),
    );
  }
}
