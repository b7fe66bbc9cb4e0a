import type { Logger } from "../../log/logger.ts";
import {
  type SessionTokensRow,
  type SummaryRow,
  toSessionTokens,
  toUsageSummary,
  toUserTokens,
  USAGE_COLUMNS,
  type UserTokensRow,
  usageSummaryQuery,
  usageValues,
  userTokensQuery,
} from "../sqlite/usage-store.ts";
import type {
  SessionTokens,
  UsageQuery,
  UsageRecord,
  UsageStore,
  UsageSummaryRow,
  UserTokens,
} from "../types.ts";
import { PgBatchWriter } from "./batch-writer.ts";
import type { PgQuery } from "./database.ts";
import { insertRows, rowsPerStatement } from "./values-list.ts";
import type { PgWriteTick } from "./write-tick.ts";

/** LLM calls in the `llm_usage` table; records are committed in one transaction per event-loop turn. */
export class PgUsageStore implements UsageStore {
  readonly #writer: PgBatchWriter<UsageRecord>;

  constructor(
    private readonly db: PgQuery,
    logger: Logger,
    tick: PgWriteTick,
  ) {
    this.#writer = new PgBatchWriter({
      name: "llm_usage",
      writeBatch: insertUsage,
      logger,
      tick,
      oneStatement: (rows) => rows.length <= rowsPerStatement(USAGE_COLUMNS.split(",").length),
    });
  }

  record(usage: UsageRecord): void {
    this.#writer.push(usage);
  }

  async summarize(query: UsageQuery): Promise<UsageSummaryRow[]> {
    await this.#writer.flush();
    const rows = await this.db.query<SummaryRow>(usageSummaryQuery("$1", ' COLLATE "C"'), [query.sinceMs]);
    return rows.map(toUsageSummary);
  }

  async tokensBySession(query: UsageQuery): Promise<SessionTokens[]> {
    await this.#writer.flush();
    const rows = await this.db.query<SessionTokensRow>(
      `SELECT session_id, SUM(prompt_tokens + completion_tokens) AS tokens
       FROM llm_usage WHERE time >= $1 GROUP BY session_id ORDER BY session_id COLLATE "C" NULLS FIRST`,
      [query.sinceMs],
    );
    return rows.map(toSessionTokens);
  }

  async tokensByUser(query: UsageQuery): Promise<UserTokens[]> {
    await this.#writer.flush();
    const rows = await this.db.query<UserTokensRow>(userTokensQuery("$1"), [query.sinceMs]);
    return rows.map(toUserTokens);
  }

  async flush(): Promise<void> {
    await this.#writer.flush();
  }

  /** Commits what is queued; later records throw. The database stays open (its owner closes it). */
  async close(): Promise<void> {
    await this.#writer.close();
  }
}

async function insertUsage(tx: PgQuery, records: readonly UsageRecord[]): Promise<void> {
  await insertRows(tx, "llm_usage", USAGE_COLUMNS, records, usageValues);
}
