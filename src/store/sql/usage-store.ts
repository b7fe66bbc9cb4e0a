import type {
  SessionTokens,
  UsageQuery,
  UsageRecord,
  UsageStore,
  UsageSummaryRow,
  UserTokens,
} from "../types.ts";
import { placeholders, type RowQueue, type SqlDatabase, type Statement } from "./sql-database.ts";

const DAY_MS = 86_400_000;

/** The columns `usageValues` gives values for. */
export const USAGE_COLUMNS =
  "time, task, provider, model, prompt_tokens, completion_tokens, latency_ms, success, error, reply_id, session_id, user_key";

interface SummaryRow {
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

interface SessionTokensRow {
  session_id: string | null;
  tokens: number;
}

interface UserTokensRow {
  user_key: string;
  tokens: number;
}

/** LLM calls in the `llm_usage` table; records are committed in one transaction per event-loop turn. */
export class SqlUsageStore implements UsageStore {
  readonly #sql: SqlDatabase;
  readonly #queue: RowQueue<UsageRecord>;
  readonly #summary: string;
  readonly #sessionTokens: string;

  constructor(sql: SqlDatabase, queue: RowQueue<UsageRecord>) {
    this.#sql = sql;
    this.#queue = queue;
    const order = sql.codePointOrder;
    // Integer division of both integer operands gives the UTC day number on both backends.
    this.#summary = `SELECT time / ${DAY_MS} AS day_index, task, provider, model, COUNT(*) AS calls,
        SUM(CASE WHEN success = 0 THEN 1 ELSE 0 END) AS failures,
        SUM(prompt_tokens) AS prompt_tokens, SUM(completion_tokens) AS completion_tokens,
        SUM(latency_ms) AS latency_ms
      FROM llm_usage WHERE time >= ?
      GROUP BY time / ${DAY_MS}, task, provider, model
      ORDER BY day_index, task${order}, provider${order}, model${order}`;
    this.#sessionTokens = `SELECT session_id, SUM(prompt_tokens + completion_tokens) AS tokens
      FROM llm_usage WHERE time >= ? GROUP BY session_id ORDER BY session_id${order} NULLS FIRST`;
  }

  record(usage: UsageRecord): void {
    this.#queue.push(usage);
  }

  async summarize(query: UsageQuery): Promise<UsageSummaryRow[]> {
    await this.#queue.flush();
    return (await this.#sql.all<SummaryRow>(this.#summary, [query.sinceMs])).map(toUsageSummary);
  }

  async tokensBySession(query: UsageQuery): Promise<SessionTokens[]> {
    await this.#queue.flush();
    const rows = await this.#sql.all<SessionTokensRow>(this.#sessionTokens, [query.sinceMs]);
    return rows.map((row) => ({ sessionId: row.session_id, tokens: row.tokens }));
  }

  async tokensByUser(query: UsageQuery): Promise<UserTokens[]> {
    await this.#queue.flush();
    const rows = await this.#sql.all<UserTokensRow>(
      `SELECT user_key, SUM(prompt_tokens + completion_tokens) AS tokens
       FROM llm_usage WHERE time >= ? AND user_key IS NOT NULL GROUP BY user_key`,
      [query.sinceMs],
    );
    return rows.map((row) => ({ userKey: row.user_key, tokens: row.tokens }));
  }

  async flush(): Promise<void> {
    await this.#queue.flush();
  }

  /** Commits what is queued; later records throw. The database stays open (its owner closes it). */
  async close(): Promise<void> {
    await this.#queue.close();
  }
}

/** A usage record's column values, in USAGE_COLUMNS order. */
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

const INSERT_USAGE = `INSERT INTO llm_usage (${USAGE_COLUMNS}) VALUES (${placeholders(USAGE_COLUMNS)})`;

/** The insert of one usage record, for a backend that writes its batch row by row. */
export function usageWrites(usage: UsageRecord): Statement[] {
  return [{ sql: INSERT_USAGE, params: usageValues(usage) }];
}

function toUsageSummary(row: SummaryRow): UsageSummaryRow {
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
