import type { PgMigration } from "./pg-migration.ts";

/**
 * Migration 2: the monitor events, picture descriptions, stickers and long-term memory, as the
 * SQLite migrations 2, 7, 8 and 9 leave them. Times are Unix milliseconds in BIGINT, JSON is text.
 */
export const MONITOR_MEDIA_MEMORY_MIGRATION: PgMigration = {
  version: 2,
  name: "monitor_events, picture_descriptions, stickers, memories",
  async up(tx) {
    // The console's timeline; pruned by count and age. Ids are given by the store when an event
    // is appended (the live stream carries them), ordered by time, with a slot per instance
    // taken from monitor_event_slots so instances sharing the database never give the same id
    // (event-ids.ts). `text`: what the turn list shows
    // of the event (a turn's trigger, a sent message's text), kept apart from `data` so listing
    // turns parses no JSON.
    await tx.query(`
      CREATE TABLE monitor_events (
        id BIGINT PRIMARY KEY,
        time BIGINT NOT NULL,
        type TEXT NOT NULL,
        reply_id TEXT,
        session_id TEXT,
        data TEXT NOT NULL,
        text TEXT
      )
    `);
    await tx.query("CREATE INDEX monitor_events_reply_idx ON monitor_events (reply_id, id)");
    await tx.query("CREATE INDEX monitor_events_type_idx ON monitor_events (type, id)");
    await tx.query("CREATE INDEX monitor_events_time_idx ON monitor_events (time)");
    await tx.query("CREATE SEQUENCE monitor_event_slots");

    await tx.query(`
      CREATE TABLE picture_descriptions (
        sha256 TEXT PRIMARY KEY,
        kind TEXT NOT NULL CHECK (kind IN ('image', 'sticker')),
        description TEXT NOT NULL,
        model TEXT NOT NULL,
        created_at BIGINT NOT NULL
      )
    `);
    await tx.query(`
      CREATE TABLE picture_file_ids (
        file_id TEXT PRIMARY KEY,
        sha256 TEXT NOT NULL REFERENCES picture_descriptions (sha256)
      )
    `);

    // Bytes in the row (each at most 1 MB, at most `stickers.capacity` rows), as in SQLite.
    await tx.query(`
      CREATE TABLE stickers (
        sha256 TEXT PRIMARY KEY,
        mime TEXT NOT NULL,
        bytes BYTEA NOT NULL,
        description TEXT NOT NULL,
        emotions TEXT[] NOT NULL,
        usage_count INTEGER NOT NULL DEFAULT 0,
        last_used_at BIGINT NOT NULL DEFAULT 0,
        created_at BIGINT NOT NULL
      )
    `);

    // `terms`: the subject's name and the content as the store computes them (CJK bigrams and
    // words, src/store/memory-terms.ts), repeats kept for BM25; the GIN index finds the memories
    // sharing a term with a query. `vector`: a little-endian Float32 embedding by `vector_model`.
    await tx.query(`
      CREATE TABLE memories (
        id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        subject TEXT NOT NULL,
        subject_name TEXT NOT NULL,
        content TEXT NOT NULL,
        origin TEXT NOT NULL,
        plugin_id TEXT,
        session_id TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL,
        confirmations INTEGER NOT NULL,
        confirmed_at BIGINT NOT NULL,
        terms TEXT[] NOT NULL,
        vector BYTEA,
        vector_model TEXT
      )
    `);
    await tx.query("CREATE INDEX memories_subject_idx ON memories (subject, updated_at)");
    await tx.query("CREATE INDEX memories_updated_idx ON memories (updated_at)");
    await tx.query("CREATE INDEX memories_confirmed_idx ON memories (confirmed_at)");
    await tx.query("CREATE INDEX memories_terms_idx ON memories USING GIN (terms)");
    // BM25's statistics, kept by the store in the same transaction as each memory change: how
    // many memories hold each term, and how many memories and terms there are in all.
    await tx.query(`
      CREATE TABLE memory_term_counts (
        term TEXT PRIMARY KEY,
        documents BIGINT NOT NULL
      )
    `);
    await tx.query("CREATE TABLE memory_index_size (documents BIGINT NOT NULL, terms BIGINT NOT NULL)");
    await tx.query("INSERT INTO memory_index_size (documents, terms) VALUES (0, 0)");
    // The messages each memory was learned from; `id` keeps the order they were added in.
    await tx.query(`
      CREATE TABLE memory_sources (
        id BIGINT GENERATED ALWAYS AS IDENTITY,
        memory_id BIGINT NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
        session_id TEXT NOT NULL,
        message_id TEXT NOT NULL,
        user_id TEXT NOT NULL,
        time BIGINT NOT NULL,
        PRIMARY KEY (memory_id, session_id, message_id)
      )
    `);
    await tx.query("CREATE INDEX memory_sources_message_idx ON memory_sources (session_id, message_id)");
    await tx.query("CREATE INDEX memory_sources_user_idx ON memory_sources (user_id)");
    await tx.query(`
      CREATE TABLE memory_deleted_messages (
        session_id TEXT NOT NULL,
        message_id TEXT NOT NULL,
        PRIMARY KEY (session_id, message_id)
      )
    `);
    await tx.query(`
      CREATE TABLE memory_progress (
        session_id TEXT PRIMARY KEY,
        row_id BIGINT NOT NULL,
        day TEXT NOT NULL DEFAULT '',
        passes INTEGER NOT NULL DEFAULT 0
      )
    `);
    await tx.query(`
      CREATE TABLE memory_forgotten (
        subject TEXT PRIMARY KEY,
        at BIGINT NOT NULL
      )
    `);
  },
};
