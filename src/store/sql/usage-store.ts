import type {
  DailySpendRow,
  SessionSpend,
  UsageQuery,
  UsageRecord,
  UsageStore,
  UsageSummaryRow,
  UserSpend,
} from "../types.ts";
import { placeholders, type RowQueue, type SqlDatabase, type Statement } from "./sql-database.ts";

const DAY_MS = 86_400_000;

/** The columns `usageValues` gives values for. */
export const USAGE_COLUMNS =
  "time, task, provider, model, prompt_tokens, completion_tokens, cached_tokens, cost, latency_ms, success, error, reply_id, session_id, user_key";

interface SummaryRow {
  day_index: number;
  task: string;
  provider: string;
  model: string;
  calls: number;
  failures: number;
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens: number;
  cost: number | null;
  latency_ms: number;
}

interface DailySpendSqlRow {
  day_index: number;
  session_id: string | null;
  provider: string;
  model: string;
  calls: number;
  tokens: number;
  cost: number | null;
}

interface SessionSpendRow {
  session_id: string | null;
  tokens: number;
  cost: number | null;
}

interface UserSpendRow {
  user_key: string;
  tokens: number;
  cost: number | null;
}

/** Tokens and cost summed, as both spend queries select them. */
const SPEND = "SUM(prompt_tokens + completion_tokens) AS tokens, SUM(cost) AS cost";

/** LLM calls in the `llm_usage` table; records are committed in one transaction per event-loop turn. */
export class SqlUsageStore implements UsageStore {
  readonly #sql: SqlDatabase;
  readonly #queue: RowQueue<UsageRecord>;
  readonly #summary: string;
  readonly #sessionSpend: string;
  readonly #dailySpend: string;

  constructor(sql: SqlDatabase, queue: RowQueue<UsageRecord>) {
    this.#sql = sql;
    this.#queue = queue;
    const order = sql.codePointOrder;
    // Integer division of both integer operands gives the UTC day number on both backends.
    this.#summary = `SELECT time / ${DAY_MS} AS day_index, task, provider, model, COUNT(*) AS calls,
        SUM(CASE WHEN success = 0 THEN 1 ELSE 0 END) AS failures,
        SUM(prompt_tokens) AS prompt_tokens, SUM(completion_tokens) AS completion_tokens,
        SUM(cached_tokens) AS cached_tokens, SUM(cost) AS cost, SUM(latency_ms) AS latency_ms
      FROM llm_usage WHERE time >= ?
      GROUP BY time / ${DAY_MS}, task, provider, model
      ORDER BY day_index, task${order}, provider${order}, model${order}`;
    this.#dailySpend = `SELECT time / ${DAY_MS} AS day_index, session_id, provider, model,
        COUNT(*) AS calls, ${SPEND}
      FROM llm_usage WHERE time >= ?
      GROUP BY time / ${DAY_MS}, session_id, provider, model
      ORDER BY day_index, session_id${order} NULLS FIRST, provider${order}, model${order}`;
    this.#sessionSpend = `SELECT session_id, ${SPEND}
      FROM llm_usage WHERE time >= ? GROUP BY session_id ORDER BY session_id${order} NULLS FIRST`;
  }

  record(usage: UsageRecord): void {
    this.#queue.push(usage);
  }

  async summarize(query: UsageQuery): Promise<UsageSummaryRow[]> {
    await this.#queue.flush();
    return (await this.#sql.all<SummaryRow>(this.#summary, [query.sinceMs])).map(toUsageSummary);
  }

  async dailySpend(query: UsageQuery): Promise<DailySpendRow[]> {
    await this.#queue.flush();
    const rows = await this.#sql.all<DailySpendSqlRow>(this.#dailySpend, [query.sinceMs]);
    return rows.map((row) => ({
      day: dayOf(row.day_index),
      sessionId: row.session_id,
      provider: row.provider,
      model: row.model,
      calls: row.calls,
      tokens: row.tokens,
      cost: row.cost,
    }));
  }

  async spendBySession(query: UsageQuery): Promise<SessionSpend[]> {
    await this.#queue.flush();
    const rows = await this.#sql.all<SessionSpendRow>(this.#sessionSpend, [query.sinceMs]);
    return rows.map((row) => ({ sessionId: row.session_id, ...spendOf(row) }));
  }

  async spendByUser(query: UsageQuery): Promise<UserSpend[]> {
    await this.#queue.flush();
    const rows = await this.#sql.all<UserSpendRow>(
      `SELECT user_key, ${SPEND}
       FROM llm_usage WHERE time >= ? AND user_key IS NOT NULL GROUP BY user_key`,
      [query.sinceMs],
    );
    return rows.map((row) => ({ userKey: row.user_key, ...spendOf(row) }));
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
    usage.cachedPromptTokens ?? 0,
    usage.cost ?? null,
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
    day: dayOf(row.day_index),
    task: row.task,
    provider: row.provider,
    model: row.model,
    calls: row.calls,
    failures: row.failures,
    promptTokens: row.prompt_tokens,
    completionTokens: row.completion_tokens,
    cachedPromptTokens: row.cached_tokens,
    cost: row.cost,
    averageLatencyMs: Math.round(row.latency_ms / row.calls),
  };
}

/** The UTC date of a day number. */
function dayOf(dayIndex: number): string {
  return new Date(dayIndex * DAY_MS).toISOString().slice(0, 10);
}

/** A sum over calls without a price is NULL: nothing was spent that a budget could count. */
function spendOf(row: { tokens: number; cost: number | null }): { tokens: number; cost: number } {
  return { tokens: row.tokens, cost: row.cost ?? 0 };
}
