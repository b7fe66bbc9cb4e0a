import type { ChatMessage } from "../message/inbound.ts";
import type { HistoryQuery, MessageStore } from "./types.ts";

export interface RecentCacheOptions {
  /** Messages kept per session; history requests up to this size are served from memory. */
  perSession: number;
  /** Sessions kept; the least recently used is dropped beyond this, so memory stays bounded. */
  sessions: number;
}

/**
 * The bot's bounds: enough for any default prompt (the history window at its largest, 20 × 3
 * messages, and a turn's new messages), bounded for many groups. Longer reads go to the store.
 */
export const BOT_RECENT_CACHE: RecentCacheOptions = { perSession: 96, sessions: 500 };

interface SessionWindow {
  /** The session's newest messages, oldest first; while loading, only those appended since it began. */
  messages: ChatMessage[];
  /** Set while the stored messages are read; the window answers once it settles. */
  loading?: Promise<void>;
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

  async recent(query: HistoryQuery): Promise<ChatMessage[]> {
    if (query.limit <= 0) return [];
    if (query.limit > this.options.perSession) return this.inner.recent(query);
    const window = this.window(query.sessionId);
    // Only a session's first read waits for the store; later ones answer from memory.
    if (window.loading) await window.loading;
    return window.messages.slice(-query.limit);
  }

  async findByMessageId(sessionId: string, messageId: string): Promise<ChatMessage | undefined> {
    const cached = this.windows.get(sessionId)?.messages.findLast((m) => m.messageId === messageId);
    return cached ?? this.inner.findByMessageId(sessionId, messageId);
  }

  /** Marks the message recalled in the store and in the session's window. */
  markRecalled(sessionId: string, messageId: string, at: number): Promise<number> {
    for (const message of this.windows.get(sessionId)?.messages ?? []) {
      if (message.messageId === messageId) message.recalledAt ??= at;
    }
    return this.inner.markRecalled(sessionId, messageId, at);
  }

  /** Drops the session's window: its messages may have been written by another process (a cluster). */
  forget(sessionId: string): void {
    this.windows.delete(sessionId);
  }

  flush(): Promise<void> {
    return this.inner.flush();
  }

  close(): Promise<void> {
    this.windows.clear();
    return this.inner.close();
  }

  private window(sessionId: string): SessionWindow {
    let window = this.windows.get(sessionId);
    if (window) {
      // Map order is insertion order: re-inserting marks the session most recently used.
      this.windows.delete(sessionId);
    } else {
      window = this.load(sessionId);
    }
    this.windows.set(sessionId, window);
    if (this.windows.size > this.options.sessions) {
      const oldest = this.windows.keys().next().value;
      if (oldest !== undefined) this.windows.delete(oldest);
    }
    return window;
  }

  /**
   * A window read from the store. Messages appended while the read is under way join it after
   * the stored ones, unless the read already returned them (a store may see appends made after
   * the call).
   */
  private load(sessionId: string): SessionWindow {
    const window: SessionWindow = { messages: [] };
    window.loading = this.inner.recent({ sessionId, limit: this.options.perSession }).then(
      (stored) => {
        const storedKeys = new Set(stored.map(messageKey));
        const arrived = window.messages.filter((message) => !storedKeys.has(messageKey(message)));
        window.messages = [...stored, ...arrived].slice(-this.options.perSession);
        window.loading = undefined;
      },
      (error: unknown) => {
        // The next read tries the store again.
        if (this.windows.get(sessionId) === window) this.windows.delete(sessionId);
        throw error;
      },
    );
    return window;
  }
}

/** Platform ids are reused (NapCat's after a restart): the sender and time tell two messages apart. */
export function messageKey(message: ChatMessage): string {
  return `${message.messageId}|${message.userId}|${message.time}`;
}
