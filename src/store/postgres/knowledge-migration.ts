import type { PgMigration } from "./pg-migration.ts";

/**
 * The knowledge base, as SQLite's migration 16 ("knowledge"): documents, their passages in
 * order, each passage's terms in a `text[]` with a GIN index (BM25 in SQL, as memory's). Vectors
 * need pgvector: its column is added when the extension is there (PgKnowledgeStore.open).
 */
export const KNOWLEDGE_MIGRATION: PgMigration = {
  version: 10,
  name: "knowledge",
  async up(tx) {
    await tx.query(`
      CREATE TABLE knowledge_documents (
        id BIGSERIAL PRIMARY KEY,
        path TEXT NOT NULL UNIQUE,
        kind TEXT NOT NULL,
        title TEXT NOT NULL,
        scope TEXT NOT NULL,
        bytes BIGINT NOT NULL,
        modified_at BIGINT NOT NULL,
        indexed_at BIGINT NOT NULL,
        note TEXT
      )
    `);
    await tx.query(`
      CREATE TABLE knowledge_chunks (
        id BIGSERIAL PRIMARY KEY,
        document_id BIGINT NOT NULL REFERENCES knowledge_documents (id) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        heading TEXT NOT NULL,
        page INTEGER,
        text TEXT NOT NULL,
        terms TEXT[] NOT NULL,
        vector_model TEXT
      )
    `);
    await tx.query("CREATE INDEX knowledge_chunks_document_idx ON knowledge_chunks (document_id, position)");
    await tx.query("CREATE INDEX knowledge_chunks_terms_idx ON knowledge_chunks USING GIN (terms)");
  },
};
