import type { Database, Statement } from "better-sqlite3";
import type { Logger } from "../../log/logger.ts";
import type {
  SessionTokens,
  UsageQuery,
  UsageRecord,
  UsageStore,
  UsageSummaryRow,
  UserTokens,
} from "../types.ts";
import { BatchWriter } from "./batch-writer.ts";
import type { WriteTick } from "./write-tick.ts";

export const DAY_MS = 86_400_000;

/** The columns `usageValues` gives values for. */
export const USAGE_COLUMNS =
  "time, task, provider, model, prompt_tokens, completion_tokens, latency_ms, success, error, reply_id, session_id, user_key";

export interface SummaryRow {
  day_index: number;
  task: string;
  provider: string;
  model: string;
  calls: number;
  failures: number;
  prompt_tokens: number;
  completion_tokens: number;
  latency_ms: number;
}

export interface SessionTokensRow {
  session_id: string | null;
  tokens: number;
}

export interface UserTokensRow {
  user_key: string;
  tokens: number;
}

/** Tokens per user since `?`/`$1`, for the per-user daily budgets (same text for SQLite and Postgres). */
export function userTokensQuery(since: string): string {
  return `SELECT user_key, SUM(prompt_tokens + completion_tokens) AS tokens
    FROM llm_usage WHERE time >= ${since} AND user_key IS NOT NULL GROUP BY user_key`;
}

export function toUserTokens(row: UserTokensRow): UserTokens {
  return { userKey: row.user_key, tokens: row.tokens };
}

export function toSessionTokens(row: SessionTokensRow): SessionTokens {
  return { sessionId: row.session_id, tokens: row.tokens };
}

/**
 * Calls per UTC day, task, provider and model since `?`/`$1`. `collate` is what makes the
 * text columns sort by code point: nothing in SQLite, ` COLLATE "C"` in Postgres.
 */
export function usageSummaryQuery(since: string, collate: string): string {
  // Integer division of both integer operands gives the UTC day number in SQLite and Postgres alike.
  return `SELECT time / ${DAY_MS} AS day_index, task, provider, model, COUNT(*) AS calls,
      SUM(CASE WHEN success = 0 THEN 1 ELSE 0 END) AS failures,
      SUM(prompt_tokens) AS prompt_tokens, SUM(completion_tokens) AS completion_tokens,
      SUM(latency_ms) AS latency_ms
    FROM llm_usage WHERE time >= ${since}
    GROUP BY time / ${DAY_MS}, task, provider, model
    ORDER BY day_index, task${collate}, provider${collate}, model${collate}`;
}

/** LLM calls in the `llm_usage` table; records are committed in one transaction per event-loop turn. */
export class SqliteUsageStore implements UsageStore {
  readonly #writer: BatchWriter<UsageRecord>;
  readonly #selectSummary: Statement<[number]>;
  readonly #selectSessionTokens: Statement<[number]>;
  readonly #selectUserTokens: Statement<[number]>;

  constructor(db: Database, logger: Logger, tick: WriteTick) {
    const insert = db.prepare(
      `INSERT INTO llm_usage (${USAGE_COLUMNS})
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const insertAll = db.transaction((records: readonly UsageRecord[]) => {
      for (const usage of records) {
        insert.run(...usageValues(usage));
      }
    });
    this.#writer = new BatchWriter({ name: "llm_usage", writeBatch: insertAll, logger, tick });
    this.#selectSummary = db.prepare(usageSummaryQuery("?", ""));
    this.#selectSessionTokens = db.prepare(
      `SELECT session_id, SUM(prompt_tokens + completion_tokens) AS tokens
       FROM llm_usage WHERE time >= ? GROUP BY session_id`,
    );
    this.#selectUserTokens = db.prepare(userTokensQuery("?"));
  }

  record(usage: UsageRecord): void {
    this.#writer.push(usage);
  }

  async summarize(query: UsageQuery): Promise<UsageSummaryRow[]> {
    this.#writer.flush();
    return (this.#selectSummary.all(query.sinceMs) as SummaryRow[]).map(toUsageSummary);
  }

  async tokensBySession(query: UsageQuery): Promise<SessionTokens[]> {
    this.#writer.flush();
    return (this.#selectSessionTokens.all(query.sinceMs) as SessionTokensRow[]).map(toSessionTokens);
  }

  async tokensByUser(query: UsageQuery): Promise<UserTokens[]> {
    this.#writer.flush();
    return (this.#selectUserTokens.all(query.sinceMs) as UserTokensRow[]).map(toUserTokens);
  }

  async flush(): Promise<void> {
    this.#writer.flush();
  }

  /** Commits what is queued; later records throw. The database stays open (its owner closes it). */
  async close(): Promise<void> {
    this.#writer.close();
  }
}

/** A usage record's column values, in the order of the llm_usage insert. */
export function usageValues(usage: UsageRecord): unknown[] {
  return [
    usage.time,
    usage.task,
    usage.provider,
    usage.model,
    usage.promptTokens,
    usage.completionTokens,
    Math.round(usage.latencyMs),
    usage.success ? 1 : 0,
    usage.error ?? null,
    usage.replyId ?? null,
    usage.sessionId ?? null,
    usage.userKey ?? null,
  ];
}

export function toUsageSummary(row: SummaryRow): UsageSummaryRow {
  return {
    day: new Date(row.day_index * DAY_MS).toISOString().slice(0, 10),
    task: row.task,
    provider: row.provider,
    model: row.model,
    calls: row.calls,
    failures: row.failures,
    promptTokens: row.prompt_tokens,
    completionTokens: row.completion_tokens,
    averageLatencyMs: Math.round(row.latency_ms / row.calls),
  };
}
