import type { SchemaMigration } from "../schema-migrations.ts";

/** The knowledge base, as PostgreSQL's migration 10 ("knowledge"): documents, their passages, their full-text index. */
export const KNOWLEDGE_MIGRATION: SchemaMigration<(statements: string) => void, void> = {
  version: 16,
  name: "knowledge",
  up(sql) {
    // The knowledge base: one row per document file (`scope` as JSON), its passages in order
    // (`vector`: a little-endian Float32 embedding made by `vector_model`).
    sql(`
      CREATE TABLE knowledge_documents (
        id INTEGER PRIMARY KEY,
        path TEXT NOT NULL UNIQUE,
        kind TEXT NOT NULL,
        title TEXT NOT NULL,
        scope TEXT NOT NULL,
        bytes INTEGER NOT NULL,
        modified_at INTEGER NOT NULL,
        indexed_at INTEGER NOT NULL,
        note TEXT
      )
    `);
    sql(`
      CREATE TABLE knowledge_chunks (
        id INTEGER PRIMARY KEY,
        document_id INTEGER NOT NULL,
        position INTEGER NOT NULL,
        heading TEXT NOT NULL,
        page INTEGER,
        text TEXT NOT NULL,
        vector BLOB,
        vector_model TEXT
      )
    `);
    sql("CREATE INDEX knowledge_chunks_document_idx ON knowledge_chunks (document_id, position)");
    // Full-text index as memory's (memory_terms): rowid = knowledge_chunks.id, `terms` the
    // passage's CJK bigrams and words, `document` its document as one token (`d<id>`), so a
    // search within the documents a chat may read is one index query.
    sql(`
      CREATE VIRTUAL TABLE knowledge_terms USING fts5 (
        terms, document, tokenize = 'ascii', detail = column
      )
    `);
  },
};
