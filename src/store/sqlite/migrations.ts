import type { SchemaMigration } from "../schema-migrations.ts";
import { groupExpressionTables } from "../sql/group-tables.ts";
import { KNOWLEDGE_MIGRATION } from "./knowledge-migration.ts";
import { LATER_MIGRATIONS } from "./later-migrations.ts";

/** Runs one or more SQL statements. */
export type SqlRunner = (statements: string) => void;

/**
 * One SQLite schema change. SQL stays plain (TEXT, INTEGER, standard DDL) so a Postgres port
 * can reuse it with little more than `INTEGER PRIMARY KEY` → an identity column.
 */
export type Migration = SchemaMigration<SqlRunner, void>;

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "messages, turns, llm_usage",
    up(sql) {
      // Times are Unix milliseconds; booleans are 0/1; JSON is stored as text.
      sql(`
        CREATE TABLE messages (
          id INTEGER PRIMARY KEY,
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
          time INTEGER NOT NULL,
          from_self INTEGER NOT NULL
        )
      `);
      sql("CREATE INDEX messages_session_row_idx ON messages (session_id, id)");
      sql("CREATE INDEX messages_session_message_idx ON messages (session_id, message_id)");
      sql(`
        CREATE TABLE turns (
          reply_id TEXT PRIMARY KEY,
          session_id TEXT NOT NULL,
          status TEXT NOT NULL CHECK (status IN ('replied', 'silent', 'failed')),
          reason TEXT,
          trigger_message_ids TEXT NOT NULL,
          created_at INTEGER NOT NULL,
          finished_at INTEGER NOT NULL,
          detail TEXT
        )
      `);
      sql("CREATE INDEX turns_session_created_idx ON turns (session_id, created_at)");
      sql(`
        CREATE TABLE llm_usage (
          id INTEGER PRIMARY KEY,
          time INTEGER NOT NULL,
          task TEXT NOT NULL,
          provider TEXT NOT NULL,
          model TEXT NOT NULL,
          prompt_tokens INTEGER NOT NULL,
          completion_tokens INTEGER NOT NULL,
          latency_ms INTEGER NOT NULL,
          success INTEGER NOT NULL,
          error TEXT,
          reply_id TEXT
        )
      `);
      sql("CREATE INDEX llm_usage_time_idx ON llm_usage (time)");
      sql("CREATE INDEX llm_usage_reply_idx ON llm_usage (reply_id)");
    },
  },
  {
    version: 2,
    name: "monitor_events",
    up(sql) {
      // The console's timeline; pruned by count and age (monitor.maxEvents, monitor.maxAgeHours).
      sql(`
        CREATE TABLE monitor_events (
          id INTEGER PRIMARY KEY,
          time INTEGER NOT NULL,
          type TEXT NOT NULL,
          reply_id TEXT,
          session_id TEXT,
          data TEXT NOT NULL
        )
      `);
      sql("CREATE INDEX monitor_events_reply_idx ON monitor_events (reply_id, id)");
      sql("CREATE INDEX monitor_events_type_idx ON monitor_events (type, id)");
      sql("CREATE INDEX monitor_events_time_idx ON monitor_events (time)");
    },
  },
  {
    version: 3,
    name: "llm_usage.session_id",
    up(sql) {
      // The chat a call was made for, so daily token budgets can be summed per group.
      sql("ALTER TABLE llm_usage ADD COLUMN session_id TEXT");
    },
  },
  {
    version: 4,
    name: "durable turns, sends journal",
    up(sql) {
      // Turns are recorded when they start: `running` and `interrupted` join the statuses and a
      // running turn has no finished_at. SQLite cannot alter a CHECK, so the table is rebuilt.
      sql(`
        CREATE TABLE turns_v4 (
          reply_id TEXT PRIMARY KEY,
          session_id TEXT NOT NULL,
          status TEXT NOT NULL
            CHECK (status IN ('running', 'replied', 'silent', 'failed', 'interrupted')),
          reason TEXT,
          kind TEXT,
          trigger_message_ids TEXT NOT NULL,
          message_ids TEXT,
          recovered_from TEXT,
          created_at INTEGER NOT NULL,
          finished_at INTEGER,
          detail TEXT
        )
      `);
      sql(`
        INSERT INTO turns_v4
          (reply_id, session_id, status, reason, trigger_message_ids, created_at, finished_at, detail)
        SELECT reply_id, session_id, status, reason, trigger_message_ids, created_at, finished_at, detail
        FROM turns
      `);
      sql("DROP TABLE turns");
      sql("ALTER TABLE turns_v4 RENAME TO turns");
      sql("CREATE INDEX turns_session_created_idx ON turns (session_id, created_at)");
      // Start-up looks for the turns a crash left running.
      sql("CREATE INDEX turns_running_idx ON turns (created_at) WHERE status = 'running'");
      // Every message a turn sets out to send, committed before it leaves (at-most-once on restart).
      sql(`
        CREATE TABLE sends (
          id INTEGER PRIMARY KEY,
          reply_id TEXT NOT NULL,
          session_id TEXT NOT NULL,
          target TEXT NOT NULL,
          content_hash TEXT NOT NULL,
          summary TEXT NOT NULL,
          state TEXT NOT NULL CHECK (state IN ('pending', 'sent', 'failed', 'in_doubt')),
          platform_message_id TEXT,
          error TEXT,
          created_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL
        )
      `);
      sql("CREATE INDEX sends_reply_idx ON sends (reply_id, id)");
      sql("CREATE INDEX sends_created_idx ON sends (created_at)");
    },
  },
  {
    version: 5,
    name: "quarantine",
    up(sql) {
      // Rows the database refused for what they are (a segment that cannot be serialised, …),
      // kept for inspection instead of being lost with their neighbours. `row` is capped text.
      sql(`
        CREATE TABLE quarantine (
          id INTEGER PRIMARY KEY,
          time INTEGER NOT NULL,
          store TEXT NOT NULL,
          error TEXT NOT NULL,
          row TEXT NOT NULL
        )
      `);
    },
  },
  {
    version: 6,
    name: "chat_sessions",
    up(sql) {
      // Each chat's newest message and message count, kept by the message store as it writes:
      // the console's chat list reads it instead of grouping every stored message, and
      // retention finds the chats over their cap here.
      sql(`
        CREATE TABLE chat_sessions (
          session_id TEXT PRIMARY KEY,
          last_id INTEGER NOT NULL,
          message_count INTEGER NOT NULL
        )
      `);
      sql(`
        INSERT INTO chat_sessions (session_id, last_id, message_count)
        SELECT session_id, MAX(id), COUNT(*) FROM messages GROUP BY session_id
      `);
      sql("CREATE INDEX chat_sessions_last_idx ON chat_sessions (last_id)");
    },
  },
  {
    version: 7,
    name: "picture_descriptions",
    up(sql) {
      // One description per distinct picture content; platform file ids point at the content
      // they were seen to hold, so a re-sent picture is known before it is fetched.
      sql(`
        CREATE TABLE picture_descriptions (
          sha256 TEXT PRIMARY KEY,
          kind TEXT NOT NULL CHECK (kind IN ('image', 'sticker')),
          description TEXT NOT NULL,
          model TEXT NOT NULL,
          created_at INTEGER NOT NULL
        )
      `);
      sql(`
        CREATE TABLE picture_file_ids (
          file_id TEXT PRIMARY KEY,
          sha256 TEXT NOT NULL REFERENCES picture_descriptions (sha256)
        )
      `);
    },
  },
  {
    version: 8,
    name: "stickers",
    up(sql) {
      // Stickers kept to send again. The bytes live in the row (each at most 1 MB, at most
      // `stickers.capacity` rows): one file to back up, and dropping a row drops its bytes in
      // the same statement, so no file is ever left behind or missing.
      sql(`
        CREATE TABLE stickers (
          sha256 TEXT PRIMARY KEY,
          mime TEXT NOT NULL,
          bytes BLOB NOT NULL,
          description TEXT NOT NULL,
          emotions TEXT NOT NULL,
          usage_count INTEGER NOT NULL DEFAULT 0,
          last_used_at INTEGER NOT NULL DEFAULT 0,
          created_at INTEGER NOT NULL
        )
      `);
    },
  },
  {
    version: 9,
    name: "memories",
    up(sql) {
      // Long-term memory: curated facts about people and groups, never pruned by
      // retention. `vector` is a little-endian Float32 embedding made by `vector_model`.
      sql(`
        CREATE TABLE memories (
          id INTEGER PRIMARY KEY,
          subject TEXT NOT NULL,
          subject_name TEXT NOT NULL,
          content TEXT NOT NULL,
          origin TEXT NOT NULL,
          plugin_id TEXT,
          session_id TEXT NOT NULL,
          created_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL,
          confirmations INTEGER NOT NULL,
          confirmed_at INTEGER NOT NULL,
          vector BLOB,
          vector_model TEXT
        )
      `);
      sql("CREATE INDEX memories_subject_idx ON memories (subject, updated_at)");
      sql("CREATE INDEX memories_updated_idx ON memories (updated_at)");
      sql("CREATE INDEX memories_confirmed_idx ON memories (confirmed_at)");
      // The messages each memory was learned from: deleting a message or forgetting a person
      // deletes what was learned only from them.
      sql(`
        CREATE TABLE memory_sources (
          memory_id INTEGER NOT NULL,
          session_id TEXT NOT NULL,
          message_id TEXT NOT NULL,
          user_id TEXT NOT NULL,
          time INTEGER NOT NULL,
          PRIMARY KEY (memory_id, session_id, message_id)
        )
      `);
      sql("CREATE INDEX memory_sources_message_idx ON memory_sources (session_id, message_id)");
      sql("CREATE INDEX memory_sources_user_idx ON memory_sources (user_id)");
      // Full-text index; rowid = memories.id. `terms`: the terms of the subject's name and the
      // content as the store computes them (CJK bigrams and words, src/store/memory-terms.ts),
      // joined by spaces. `subject`: the subject as one hex token, so a search about a few
      // subjects is one index query (`subject : (…) AND terms : (…)`) that only scores their
      // memories. The store writes it in the same transaction as the memory: a trigger could
      // not run the tokenizer. The `ascii` tokenizer splits only at ASCII spaces and
      // punctuation, never inside a term (terms hold letters and digits only), so each term
      // stays one token; `detail = column` keeps no positions (single terms need none) but
      // allows the column filters.
      sql(`
        CREATE VIRTUAL TABLE memory_terms USING fts5 (
          terms, subject, tokenize = 'ascii', detail = column
        )
      `);
      // Messages their platform deleted (recalled): never learned from, even when still stored.
      sql(`
        CREATE TABLE memory_deleted_messages (
          session_id TEXT NOT NULL,
          message_id TEXT NOT NULL,
          PRIMARY KEY (session_id, message_id)
        )
      `);
      // Where the background learner stopped in each session (a messages row id), and how many
      // passes it made there on `day` (chat.timezone's date): the daily bound outlives restarts.
      sql(`
        CREATE TABLE memory_progress (
          session_id TEXT PRIMARY KEY,
          row_id INTEGER NOT NULL,
          day TEXT NOT NULL DEFAULT '',
          passes INTEGER NOT NULL DEFAULT 0
        )
      `);
      // When each subject last asked to be forgotten: older messages are never learned from again.
      sql(`
        CREATE TABLE memory_forgotten (
          subject TEXT PRIMARY KEY,
          at INTEGER NOT NULL
        )
      `);
    },
  },
  {
    version: 10,
    name: "turns.instance_id",
    up(sql) {
      // The cluster member running the turn (null on a single instance): after a crash, each
      // instance recovers only its own turns.
      sql("ALTER TABLE turns ADD COLUMN instance_id TEXT");
    },
  },
  {
    version: 11,
    name: "turns.attempt",
    up(sql) {
      // Which run of its messages a turn is (null: the first). A turn run again after a crash
      // that crashes too is not run a third time: a poison message must not crash-loop the bot.
      sql("ALTER TABLE turns ADD COLUMN attempt INTEGER");
    },
  },
  {
    version: 12,
    name: "llm_usage.user_key",
    up(sql) {
      // Whose turn a call was made for (`platform:userId`), so the per-user daily token budget
      // is summed from the store after a restart like the others.
      sql("ALTER TABLE llm_usage ADD COLUMN user_key TEXT");
    },
  },
  {
    version: 13,
    name: "stickers.session_id",
    up(sql) {
      // The chat a sticker was collected in: it is sent only there unless
      // stickers.shareAcrossChats (null on stickers kept before: sent only when shared).
      sql("ALTER TABLE stickers ADD COLUMN session_id TEXT");
    },
  },
  {
    version: 14,
    name: "messages.recalled_at, messages.notice",
    up(sql) {
      // When the platform said the message was recalled (null: never): kept for the console,
      // never shown to models.
      sql("ALTER TABLE messages ADD COLUMN recalled_at INTEGER");
      // A notice shown in the chat like a message (a poke), as JSON; null for messages.
      sql("ALTER TABLE messages ADD COLUMN notice TEXT");
    },
  },
  {
    version: 15,
    name: "group_expressions, group_expression_progress",
    up(sql) {
      for (const statement of groupExpressionTables({ id: "INTEGER PRIMARY KEY", time: "INTEGER" }))
        sql(statement);
    },
  },
  KNOWLEDGE_MIGRATION,
  ...LATER_MIGRATIONS,
];
