import type { SchemaMigration } from "../schema-migrations.ts";

/**
 * SQLite migrations 17 and later (migrations.ts lists them after the first sixteen): voice
 * transcripts, reminders, the cost of each model call, the accounts the console remembers.
 */
export const LATER_MIGRATIONS: readonly SchemaMigration<(statements: string) => void, void>[] = [
  {
    version: 17,
    name: "voice_transcripts",
    up(sql) {
      // Voice message transcripts, cached as picture descriptions are: one per distinct audio
      // content (its playable form), and the platform file ids seen holding it.
      sql(`
        CREATE TABLE voice_transcripts (
          sha256 TEXT PRIMARY KEY,
          kind TEXT NOT NULL CHECK (kind = 'voice'),
          description TEXT NOT NULL,
          model TEXT NOT NULL,
          created_at INTEGER NOT NULL
        )
      `);
      sql(`
        CREATE TABLE voice_file_ids (
          file_id TEXT PRIMARY KEY,
          sha256 TEXT NOT NULL REFERENCES voice_transcripts (sha256)
        )
      `);
    },
  },
  {
    version: 18,
    name: "reminders, schedule_runs",
    up(sql) {
      // Reminders set in chats: `origin` is where the reminder is sent (JSON), `late` whether
      // it went out after its time (the bot was down). A claim moves `pending` on exactly once.
      sql(`
        CREATE TABLE reminders (
          id INTEGER PRIMARY KEY AUTOINCREMENT,
          session_id TEXT NOT NULL,
          origin TEXT NOT NULL,
          user_id TEXT NOT NULL,
          user_name TEXT NOT NULL,
          text TEXT NOT NULL,
          due_at INTEGER NOT NULL,
          created_at INTEGER NOT NULL,
          status TEXT NOT NULL CHECK (status IN ('pending', 'sent', 'cancelled', 'expired')),
          fired_at INTEGER,
          late INTEGER NOT NULL DEFAULT 0
        )
      `);
      sql("CREATE INDEX reminders_due_idx ON reminders (status, due_at)");
      sql("CREATE INDEX reminders_session_idx ON reminders (session_id, status)");
      // One row per schedules: entry and time it fired at: the first instance to insert it sends.
      sql(`
        CREATE TABLE schedule_runs (
          schedule_key TEXT NOT NULL,
          due_at INTEGER NOT NULL,
          PRIMARY KEY (schedule_key, due_at)
        )
      `);
    },
  },
  {
    version: 19,
    name: "llm_usage.cached_tokens, llm_usage.cost",
    up(sql) {
      // The prompt tokens the provider read from its cache, and what the call cost at the
      // prices of its time (null: no price), so money budgets and the bill survive a price change.
      sql("ALTER TABLE llm_usage ADD COLUMN cached_tokens INTEGER NOT NULL DEFAULT 0");
      sql("ALTER TABLE llm_usage ADD COLUMN cost REAL");
    },
  },
  {
    version: 20,
    name: "known_accounts",
    up(sql) {
      // The platform accounts that have connected, so the console lists one that is gone (also
      // after a restart) until the operator dismisses it; connecting again brings it back.
      sql(`
        CREATE TABLE known_accounts (
          adapter_id TEXT NOT NULL,
          self_id TEXT NOT NULL,
          last_connected_at INTEGER NOT NULL,
          PRIMARY KEY (adapter_id, self_id)
        )
      `);
    },
  },
];
