import type { ChatMessage } from "../message/inbound.ts";
import type { MonitorEventStore } from "../monitor/event-store.ts";

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
  recent(query: HistoryQuery): ChatMessage[];
  findByMessageId(sessionId: string, messageId: string): ChatMessage | undefined;
  /** Commits everything queued. */
  flush(): void;
  close(): void;
}

/** One conversation as the console lists it. */
export interface SessionSummary {
  sessionId: string;
  platform: string;
  chatType: string;
  messageCount: number;
  /** The session's newest message. */
  last: StoredMessage;
}

export interface SessionQuery {
  /** Matches any part of the session id (which holds the group or user id). */
  search?: string;
  limit: number;
}

export interface MessageQuery {
  /** Only this session; all sessions when absent. */
  sessionId?: string;
  /** Matches any part of the stored segments (text, names in mentions, …). */
  search?: string;
  /** Only messages older than this row (paging backwards). */
  beforeRowId?: number;
  limit: number;
}

/** Reading stored conversations for the console. Reads see every appended message. */
export interface ChatHistory {
  /** Sessions with the most recent activity first. */
  sessions(query: SessionQuery): SessionSummary[];
  /** Newest first. */
  messages(query: MessageQuery): StoredMessage[];
}

/** How a turn ended: a reply was sent, the agent chose silence, or something failed. */
export type TurnStatus = "replied" | "silent" | "failed";

/** The outcome of one agent turn, keyed by its `reply_id`. */
export interface TurnRecord {
  replyId: string;
  sessionId: string;
  status: TurnStatus;
  /** Why the turn ended this way (the `no_reply` reason, an error message, …). */
  reason?: string;
  /** Platform ids of the messages that triggered the turn. */
  triggerMessageIds: string[];
  /** Unix time in milliseconds. */
  createdAt: number;
  /** Unix time in milliseconds. */
  finishedAt: number;
  /** Free-form JSON details (planner rounds, tool calls, …). */
  detail?: Record<string, unknown>;
}

/** Turn outcomes. Recording a `replyId` again replaces the earlier record. */
export interface TurnStore {
  record(turn: TurnRecord): void;
  get(replyId: string): TurnRecord | undefined;
  /** The newest `limit` turns of the session, newest first. */
  listBySession(sessionId: string, limit: number): TurnRecord[];
}

/** One LLM call. */
export interface UsageRecord {
  /** Unix time in milliseconds. */
  time: number;
  /** What the call was for: `planner`, `replyer`, … */
  task: string;
  provider: string;
  model: string;
  /** 0 when the provider did not report it. */
  promptTokens: number;
  /** 0 when the provider did not report it. */
  completionTokens: number;
  latencyMs: number;
  success: boolean;
  error?: string;
  replyId?: string;
  /** The chat the call was made for; absent for calls outside any chat (console model tests). */
  sessionId?: string;
}

export interface UsageQuery {
  /** Only calls at or after this Unix time in milliseconds. */
  sinceMs: number;
}

/** Totals of the calls made on one UTC day for one task on one model. */
export interface UsageSummaryRow {
  /** UTC date, `YYYY-MM-DD`. */
  day: string;
  task: string;
  provider: string;
  model: string;
  calls: number;
  failures: number;
  promptTokens: number;
  completionTokens: number;
  averageLatencyMs: number;
}

/** Tokens (prompt plus completion) spent for one chat, or outside any chat when `sessionId` is null. */
export interface SessionTokens {
  sessionId: string | null;
  tokens: number;
}

/** LLM call accounting. Like messages, records are queued and committed in batches. */
export interface UsageStore {
  record(usage: UsageRecord): void;
  /** Rows ordered by day, task, provider, model. */
  summarize(query: UsageQuery): UsageSummaryRow[];
  /** Tokens of the calls made at or after `sinceMs`, one row per chat. */
  tokensBySession(query: UsageQuery): SessionTokens[];
  /** Commits everything queued. */
  flush(): void;
  close(): void;
}

/** Every store the bot uses, over one database. */
export interface Stores {
  messages: MessageStore;
  /** The same messages, for browsing and search. */
  history: ChatHistory;
  turns: TurnStore;
  usage: UsageStore;
  /** What each turn did, for the console's timeline; bounded by count and age. */
  monitorEvents: MonitorEventStore;
  /** Flushes every queue, then closes the database. Safe to call twice. */
  close(): void;
}
