import type { ChatMessage } from "../message/inbound.ts";
import type { HistoryQuery, MessageStore } from "./types.ts";

export interface RecentCacheOptions {
  /** Messages kept per session; history requests up to this size are served from memory. */
  perSession: number;
  /** Sessions kept; the least recently used is dropped beyond this, so memory stays bounded. */
  sessions: number;
}

interface SessionWindow {
  /** The session's newest messages, oldest first. */
  messages: ChatMessage[];
}

/**
 * Keeps each active session's newest messages in memory in front of a MessageStore, so
 * building a prompt does not query (and flush) the database on every turn. A session enters
 * the cache on its first read, loaded from the store; appends then keep it current.
 */
export class RecentMessageCache implements MessageStore {
  private readonly windows = new Map<string, SessionWindow>();

  constructor(
    private readonly inner: MessageStore,
    private readonly options: RecentCacheOptions,
  ) {}

  append(message: ChatMessage): void {
    this.inner.append(message);
    const window = this.windows.get(message.sessionId);
    if (!window) return;
    window.messages.push(message);
    if (window.messages.length > this.options.perSession) window.messages.shift();
  }

  recent(query: HistoryQuery): ChatMessage[] {
    if (query.limit > this.options.perSession) return this.inner.recent(query);
    return this.window(query.sessionId).messages.slice(-query.limit || Number.POSITIVE_INFINITY);
  }

  findByMessageId(sessionId: string, messageId: string): ChatMessage | undefined {
    const cached = this.windows.get(sessionId)?.messages.findLast((m) => m.messageId === messageId);
    return cached ?? this.inner.findByMessageId(sessionId, messageId);
  }

  flush(): void {
    this.inner.flush();
  }

  close(): void {
    this.windows.clear();
    this.inner.close();
  }

  private window(sessionId: string): SessionWindow {
    let window = this.windows.get(sessionId);
    if (window) {
      // Map order is insertion order: re-inserting marks the session most recently used.
      this.windows.delete(sessionId);
    } else {
      window = { messages: this.inner.recent({ sessionId, limit: this.options.perSession }) };
    }
    this.windows.set(sessionId, window);
    if (this.windows.size > this.options.sessions) {
      const oldest = this.windows.keys().next().value;
      if (oldest !== undefined) this.windows.delete(oldest);
    }
    return window;
  }
}
