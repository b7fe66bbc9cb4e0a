import type { ChatMessage } from "../message/inbound.ts";

export interface StoredMessage extends ChatMessage {
  /** Store row id, increasing in insertion order. */
  rowId: number;
}

export interface HistoryQuery {
  sessionId: string;
  /** At most this many, newest kept; returned oldest first. */
  limit: number;
}

/**
 * Persistence for messages. Writes are queued and committed in batches, so `append` never
 * blocks ingest; reads see every appended message (they flush the queue first).
 * Keep SQL portable: a Postgres implementation will sit behind the same interface.
 */
export interface MessageStore {
  append(message: ChatMessage): void;
  recent(query: HistoryQuery): StoredMessage[];
  findByMessageId(sessionId: string, messageId: string): StoredMessage | undefined;
  /** Commits everything queued. */
  flush(): void;
  close(): void;
}
