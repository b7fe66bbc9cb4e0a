import type { Logger } from "../../log/logger.ts";
import { checkNotNewer, checkOrdered, logMigrations } from "../schema-migrations.ts";
import { groupExpressionTables } from "../sql/group-tables.ts";
import { KNOWLEDGE_MIGRATION } from "./knowledge-migration.ts";
import { MONITOR_MEDIA_MEMORY_MIGRATION } from "./migration-2.ts";
import { oneStatement, type PgMigration, type PgTransactions } from "./pg-migration.ts";
import type { PgQuery } from "./pg-query.ts";

/**
 * The schema as the SQLite migrations leave it, in one step: times are Unix milliseconds in
 * BIGINT, JSON is stored as text (searched with LIKE like SQLite's), row ids are identities,
 * booleans are 0/1 as in SQLite, so both backends read rows the same way.
 */
export const PG_MIGRATIONS: readonly PgMigration[] = [
  {
    version: 1,
    name: "messages, chat_sessions, turns, sends, llm_usage, quarantine",
    async up(tx) {
      await tx.query(`
        CREATE TABLE messages (
          id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
          platform TEXT NOT NULL,
          adapter_id TEXT NOT NULL,
          self_id TEXT NOT NULL,
          session_id TEXT NOT NULL,
          chat_type TEXT NOT NULL,
          group_id TEXT,
          user_id TEXT NOT NULL,
          sender_name TEXT NOT NULL,
          message_id TEXT NOT NULL,
          segments TEXT NOT NULL,
          time BIGINT NOT NULL,
          from_self INTEGER NOT NULL
        )
      `);
      await tx.query("CREATE INDEX messages_session_row_idx ON messages (session_id, id)");
      await tx.query("CREATE INDEX messages_session_message_idx ON messages (session_id, message_id)");
      // Each chat's newest message and message count, kept by the message store as it writes.
      await tx.query(`
        CREATE TABLE chat_sessions (
          session_id TEXT PRIMARY KEY,
          last_id BIGINT NOT NULL,
          message_count BIGINT NOT NULL
        )
      `);
      await tx.query("CREATE INDEX chat_sessions_last_idx ON chat_sessions (last_id)");
      // instance_id: the cluster member running the turn (null on a single instance).
      await tx.query(`
        CREATE TABLE turns (
          reply_id TEXT PRIMARY KEY,
          session_id TEXT NOT NULL,
          status TEXT NOT NULL
            CHECK (status IN ('running', 'replied', 'silent', 'failed', 'interrupted')),
          reason TEXT,
          kind TEXT,
          trigger_message_ids TEXT NOT NULL,
          message_ids TEXT,
          recovered_from TEXT,
          created_at BIGINT NOT NULL,
          finished_at BIGINT,
          detail TEXT,
          instance_id TEXT
        )
      `);
      await tx.query("CREATE INDEX turns_session_created_idx ON turns (session_id, created_at)");
      await tx.query("CREATE INDEX turns_running_idx ON turns (created_at) WHERE status = 'running'");
      await tx.query(`
        CREATE TABLE sends (
          id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
          reply_id TEXT NOT NULL,
          session_id TEXT NOT NULL,
          target TEXT NOT NULL,
          content_hash TEXT NOT NULL,
          summary TEXT NOT NULL,
          state TEXT NOT NULL CHECK (state IN ('pending', 'sent', 'failed', 'in_doubt')),
          platform_message_id TEXT,
          error TEXT,
          created_at BIGINT NOT NULL,
          updated_at BIGINT NOT NULL
        )
      `);
      await tx.query("CREATE INDEX sends_reply_idx ON sends (reply_id, id)");
      await tx.query("CREATE INDEX sends_created_idx ON sends (created_at)");
      await tx.query(`
        CREATE TABLE llm_usage (
          id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
          time BIGINT NOT NULL,
          task TEXT NOT NULL,
          provider TEXT NOT NULL,
          model TEXT NOT NULL,
          prompt_tokens BIGINT NOT NULL,
          completion_tokens BIGINT NOT NULL,
          latency_ms BIGINT NOT NULL,
          success INTEGER NOT NULL,
          error TEXT,
          reply_id TEXT,
          session_id TEXT
        )
      `);
      await tx.query("CREATE INDEX llm_usage_time_idx ON llm_usage (time)");
      await tx.query("CREATE INDEX llm_usage_reply_idx ON llm_usage (reply_id)");
      // Rows the database refused for what they are, kept for inspection (`row` is capped text).
      await tx.query(`
        CREATE TABLE quarantine (
          id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
          time BIGINT NOT NULL,
          store TEXT NOT NULL,
          error TEXT NOT NULL,
          row TEXT NOT NULL
        )
      `);
    },
  },
  MONITOR_MEDIA_MEMORY_MIGRATION,
  // As SQLite's migration 11: which run of its messages a turn is (null: the first).
  oneStatement(3, "turns.attempt", "ALTER TABLE turns ADD COLUMN attempt INTEGER"),
  // As SQLite's migration 12: whose turn a call was made for, for the per-user daily budget.
  oneStatement(4, "llm_usage.user_key", "ALTER TABLE llm_usage ADD COLUMN user_key TEXT"),
  // As SQLite's migration 13: the chat a sticker was collected in.
  oneStatement(5, "stickers.session_id", "ALTER TABLE stickers ADD COLUMN session_id TEXT"),
  // Per session, the newest lease token a cluster instance took it with (session-fence.ts).
  // No SQLite counterpart: a cluster runs on PostgreSQL only.
  oneStatement(
    6,
    "session_fences",
    "CREATE TABLE session_fences (session_id TEXT PRIMARY KEY, token BIGINT NOT NULL)",
  ),
  // A sticker's emotion words as SQLite keeps them, one per line (a word never holds
  // whitespace): the stores read both backends' rows the same way.
  oneStatement(
    7,
    "stickers.emotions as text",
    "ALTER TABLE stickers ALTER COLUMN emotions TYPE TEXT USING array_to_string(emotions, E'\\n')",
  ),
  // As SQLite's migration 14: when the platform said the message was recalled (null: never),
  // and a notice shown like a message (a poke, JSON).
  oneStatement(
    8,
    "messages.recalled_at, messages.notice",
    "ALTER TABLE messages ADD COLUMN recalled_at BIGINT, ADD COLUMN notice TEXT",
  ),
  // As SQLite's migration 15: groups' learned expressions and each group's learning progress.
  {
    version: 9,
    name: "group_expressions, group_expression_progress",
    async up(tx) {
      const types = { id: "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY", time: "BIGINT" };
      for (const statement of groupExpressionTables(types)) await tx.query(statement);
    },
  },
  KNOWLEDGE_MIGRATION,
  {
    version: 11,
    name: "voice_transcripts",
    // As SQLite's migration 17: voice transcripts cached by content and by file id.
    async up(tx) {
      await tx.query(`
        CREATE TABLE voice_transcripts (
          sha256 TEXT PRIMARY KEY,
          kind TEXT NOT NULL CHECK (kind = 'voice'),
          description TEXT NOT NULL,
          model TEXT NOT NULL,
          created_at BIGINT NOT NULL
        )
      `);
      await tx.query(`
        CREATE TABLE voice_file_ids (
          file_id TEXT PRIMARY KEY,
          sha256 TEXT NOT NULL REFERENCES voice_transcripts (sha256)
        )
      `);
    },
  },
  {
    version: 12,
    name: "reminders, schedule_runs",
    // As SQLite's migration 18: reminders set in chats, and which schedule times have fired.
    async up(tx) {
      await tx.query(`
        CREATE TABLE reminders (
          id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
          session_id TEXT NOT NULL,
          origin TEXT NOT NULL,
          user_id TEXT NOT NULL,
          user_name TEXT NOT NULL,
          text TEXT NOT NULL,
          due_at BIGINT NOT NULL,
          created_at BIGINT NOT NULL,
          status TEXT NOT NULL CHECK (status IN ('pending', 'sent', 'cancelled', 'expired')),
          fired_at BIGINT,
          late INTEGER NOT NULL DEFAULT 0
        )
      `);
      await tx.query("CREATE INDEX reminders_due_idx ON reminders (status, due_at)");
      await tx.query("CREATE INDEX reminders_session_idx ON reminders (session_id, status)");
      await tx.query(`
        CREATE TABLE schedule_runs (
          schedule_key TEXT NOT NULL,
          due_at BIGINT NOT NULL,
          PRIMARY KEY (schedule_key, due_at)
        )
      `);
    },
  },
  // As SQLite's migration 19: cached prompt tokens, and the cost at the prices of the call's time.
  oneStatement(
    13,
    "llm_usage.cached_tokens, llm_usage.cost",
    "ALTER TABLE llm_usage ADD COLUMN cached_tokens BIGINT NOT NULL DEFAULT 0, ADD COLUMN cost DOUBLE PRECISION",
  ),
  // As SQLite's migration 20: the platform accounts that have connected, until dismissed.
  oneStatement(
    14,
    "known_accounts",
    `CREATE TABLE known_accounts (
      adapter_id TEXT NOT NULL,
      self_id TEXT NOT NULL,
      last_connected_at BIGINT NOT NULL,
      PRIMARY KEY (adapter_id, self_id)
    )`,
  ),
];

/**
 * Serialises migrating among the bot instances sharing one database (a cluster starting
 * together): an arbitrary constant, the key of a transaction-scoped advisory lock.
 */
const MIGRATION_LOCK_KEY = 7_361_702_012;

/**
 * Brings the schema up to date: applies, in order, each migration whose version is not yet in
 * `schema_migrations`, each in its own transaction with its bookkeeping row, under an advisory
 * lock so that instances opening together migrate once. Returns the versions applied now.
 */
export async function applyPgMigrations(
  db: PgTransactions,
  migrations: readonly PgMigration[],
  logger: Logger,
): Promise<number[]> {
  checkOrdered(migrations);
  const newestKnown = migrations.at(-1)?.version ?? 0;
  const applied: number[] = [];
  let newestBefore: number | undefined;
  for (const migration of migrations) {
    const ran = await db.transaction(async (tx) => {
      const done = await lockedAppliedVersions(tx);
      const newestApplied = Math.max(0, ...done);
      newestBefore ??= newestApplied;
      checkNotNewer(newestApplied, newestKnown);
      if (done.has(migration.version)) return false;
      await migration.up(tx);
      await tx.query("INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)", [
        migration.version,
        migration.name,
        Date.now(),
      ]);
      return true;
    });
    if (!ran) continue;
    logger.debug({ version: migration.version, name: migration.name }, "applied database migration");
    applied.push(migration.version);
  }
  logMigrations(logger, newestBefore ?? 0, applied);
  return applied;
}

/** Takes the migration lock (held until the transaction ends) and reads the applied versions. */
async function lockedAppliedVersions(tx: PgQuery): Promise<Set<number>> {
  await tx.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK_KEY]);
  await tx.query(`
    CREATE TABLE IF NOT EXISTS schema_migrations (
      version INTEGER PRIMARY KEY,
      name TEXT NOT NULL,
      applied_at BIGINT NOT NULL
    )
  `);
  const rows = await tx.query<{ version: number }>("SELECT version FROM schema_migrations");
  return new Set(rows.map((row) => row.version));
}
