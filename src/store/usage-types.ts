/** LLM calls as the usage store records and sums them (what usage, the bill and the budgets read). */

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
  /** Of `promptTokens`, those the provider read from its prompt cache (0 when it did not say). */
  cachedPromptTokens?: number;
  /**
   * What the call cost at `llm.prices` when it was made, in the prices' currency; absent when
   * no price was set for its model (so a price set later never rewrites what was spent).
   */
  cost?: number;
  latencyMs: number;
  success: boolean;
  error?: string;
  replyId?: string;
  /** The chat the call was made for; absent for calls outside any chat (console model tests). */
  sessionId?: string;
  /**
   * The user whose turn the call was made for (who started it: the first trigger's sender, or
   * who asked for the summary), keyed as the limits key users (`onebot:10001`); absent outside
   * such turns (digests, background learning).
   */
  userKey?: string;
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
  cachedPromptTokens: number;
  /** Summed from the calls' recorded costs; null when none of them had a price. */
  cost: number | null;
  averageLatencyMs: number;
}

/** What the calls of one UTC day in one chat on one model used: the console's cost chart. */
export interface DailySpendRow {
  /** UTC date, `YYYY-MM-DD`. */
  day: string;
  /** The chat the calls were made for; null outside any chat (a console model test, a digest's embedding). */
  sessionId: string | null;
  provider: string;
  model: string;
  calls: number;
  /** Prompt plus completion tokens. */
  tokens: number;
  /** Summed from the calls' recorded costs; null when none of them had a price. */
  cost: number | null;
}

/** What calls used: tokens (prompt plus completion) and their recorded cost (0 without prices). */
export interface Spend {
  tokens: number;
  cost: number;
}

/** Spent for one chat, or outside any chat when `sessionId` is null. */
export interface SessionSpend extends Spend {
  sessionId: string | null;
}

export interface UserSpend extends Spend {
  /** As in `UsageRecord.userKey`. */
  userKey: string;
}

/** LLM call accounting. Like messages, records are queued and committed in batches. */
export interface UsageStore {
  record(usage: UsageRecord): void;
  /** Rows ordered by day, task, provider, model. */
  summarize(query: UsageQuery): Promise<UsageSummaryRow[]>;
  /** Rows ordered by day, chat (null first), provider, model. */
  dailySpend(query: UsageQuery): Promise<DailySpendRow[]>;
  /** What the calls made at or after `sinceMs` spent, one row per chat. */
  spendBySession(query: UsageQuery): Promise<SessionSpend[]>;
  /** What the calls made at or after `sinceMs` for users' turns spent, one row per user. */
  spendByUser(query: UsageQuery): Promise<UserSpend[]>;
  /** Commits everything queued. */
  flush(): Promise<void>;
  close(): Promise<void>;
}
