import type { Logger } from "../../log/logger.ts";
import {
  CHUNK_COLUMNS,
  chunkTerms,
  DOCUMENTS_QUERY,
  NEW_DOCUMENT_COLUMNS,
  newDocumentValues,
  toKnowledgeDocuments,
  toStoredChunks,
} from "../knowledge-rows.ts";
import type {
  ChunkScore,
  ChunkVectors,
  KnowledgeChunk,
  KnowledgeDocument,
  KnowledgeScope,
  KnowledgeStore,
  NewKnowledgeDocument,
  StoredChunk,
} from "../knowledge-types.ts";
import type { PgDatabase } from "./database.ts";
import { BM25_B, BM25_K1 } from "./memory-search.ts";

/**
 * The passages of `$2` (document ids) holding any of the terms `$1`, best first by BM25 as
 * memory's search computes it, with the statistics counted over the whole knowledge base at
 * query time (it is small beside memory, and changes a document at a time).
 */
const MATCHING = `
  WITH size AS MATERIALIZED (
    SELECT COUNT(*)::float8 AS documents, GREATEST(AVG(cardinality(terms)), 1)::float8 AS average_length
    FROM knowledge_chunks
  ), query_terms AS MATERIALIZED (
    SELECT q.term, ln(1 + (size.documents - c.n + 0.5) / (c.n + 0.5))::float8 AS idf
    FROM unnest($1::text[]) AS q(term) CROSS JOIN size
    CROSS JOIN LATERAL (SELECT COUNT(*)::float8 AS n FROM knowledge_chunks k WHERE k.terms @> ARRAY[q.term]) c
    WHERE c.n > 0
  )
  SELECT k.id, (
      SELECT sum(q.idf * hits.n * ${BM25_K1 + 1}
        / (hits.n + ${BM25_K1} * (${1 - BM25_B} + ${BM25_B} * cardinality(k.terms) / size.average_length)))
      FROM query_terms q, LATERAL (SELECT cardinality(array_positions(k.terms, q.term)) AS n) hits
      WHERE hits.n > 0
    )::float8 AS score
  FROM knowledge_chunks k CROSS JOIN size
  WHERE k.terms && $1::text[] AND k.document_id = ANY($2::bigint[])
  ORDER BY score DESC, k.id LIMIT $3`;

/**
 * The knowledge base on PostgreSQL: terms in a GIN-indexed `text[]`, BM25 in SQL; vectors in
 * a pgvector column when the server has the extension, else full-text search only.
 */
export class PgKnowledgeStore implements KnowledgeStore {
  readonly #db: PgDatabase;
  readonly vectorSupport: "pgvector" | "none";

  private constructor(db: PgDatabase, vectorSupport: "pgvector" | "none") {
    this.#db = db;
    this.vectorSupport = vectorSupport;
  }

  /** Opens the store; with pgvector available, makes sure the extension and the vector column exist. */
  static async open(db: PgDatabase, logger: Logger): Promise<PgKnowledgeStore> {
    const available = await db.query("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'");
    if (available.length === 0) return new PgKnowledgeStore(db, "none");
    try {
      await db.query("CREATE EXTENSION IF NOT EXISTS vector");
      await db.query("ALTER TABLE knowledge_chunks ADD COLUMN IF NOT EXISTS embedding vector");
      return new PgKnowledgeStore(db, "pgvector");
    } catch (error) {
      logger.warn({ err: error }, "knowledge: pgvector is installed but cannot be enabled here");
      return new PgKnowledgeStore(db, "none");
    }
  }

  async documents(): Promise<KnowledgeDocument[]> {
    return toKnowledgeDocuments(await this.#db.query(DOCUMENTS_QUERY));
  }

  async saveDocument(
    document: NewKnowledgeDocument,
    chunks: KnowledgeChunk[],
    vectors?: ChunkVectors,
  ): Promise<number> {
    const withVectors = this.vectorSupport === "pgvector" && vectors !== undefined;
    return this.#db.transaction(async (tx) => {
      await tx.query("DELETE FROM knowledge_documents WHERE path = $1", [document.path]);
      const [row] = await tx.query<{ id: string }>(
        `INSERT INTO knowledge_documents (${NEW_DOCUMENT_COLUMNS})
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id`,
        newDocumentValues(document),
      );
      const id = Number(row!.id);
      if (chunks.length === 0) return id;
      await tx.query(
        `INSERT INTO knowledge_chunks (document_id, position, heading, page, text, terms${withVectors ? ", vector_model, embedding" : ""})
         SELECT $1, c.position, c.heading, c.page, c.text, ARRAY(SELECT json_array_elements_text(c.terms))${withVectors ? ", $3, c.embedding::vector" : ""}
         FROM json_to_recordset($2::json) AS c(position integer, heading text, page integer, text text, terms json${withVectors ? ", embedding text" : ""})`,
        [
          id,
          JSON.stringify(
            chunks.map((chunk, index) => ({
              ...chunk,
              page: chunk.page ?? null,
              terms: chunkTerms(chunk),
              ...(withVectors ? { embedding: `[${Array.from(vectors.vectors[index]!).join(",")}]` } : {}),
            })),
          ),
          ...(withVectors ? [vectors.model] : []),
        ],
      );
      return id;
    });
  }

  async setScope(path: string, scope: KnowledgeScope): Promise<void> {
    await this.#db.query("UPDATE knowledge_documents SET scope = $1 WHERE path = $2", [
      JSON.stringify(scope),
      path,
    ]);
  }

  async removeDocument(path: string): Promise<void> {
    await this.#db.query("DELETE FROM knowledge_documents WHERE path = $1", [path]);
  }

  async chunksOf(documentId: number): Promise<StoredChunk[]> {
    return toStoredChunks(
      await this.#db.query(
        `SELECT ${CHUNK_COLUMNS} FROM knowledge_chunks WHERE document_id = $1 ORDER BY position`,
        [documentId],
      ),
    );
  }

  async chunks(ids: number[]): Promise<StoredChunk[]> {
    return toStoredChunks(
      await this.#db.query(`SELECT ${CHUNK_COLUMNS} FROM knowledge_chunks WHERE id = ANY($1::bigint[])`, [
        ids,
      ]),
    );
  }

  async searchTerms(terms: string[], documentIds: number[], limit: number): Promise<ChunkScore[]> {
    if (terms.length === 0 || documentIds.length === 0) return [];
    const rows = await this.#db.query<{ id: string; score: number }>(
      MATCHING,
      [terms, documentIds, limit],
      "knowledge-matching",
    );
    return rows.map((row) => ({ id: Number(row.id), score: row.score }));
  }

  async nearest(
    vector: Float32Array,
    model: string,
    documentIds: number[],
    limit: number,
  ): Promise<ChunkScore[]> {
    if (this.vectorSupport !== "pgvector" || documentIds.length === 0) return [];
    const rows = await this.#db.query<{ id: string; score: number }>(
      `SELECT id, 1 - (embedding <=> $1::vector) AS score FROM knowledge_chunks
       WHERE vector_model = $2 AND document_id = ANY($3::bigint[]) AND embedding IS NOT NULL
       ORDER BY embedding <=> $1::vector, id LIMIT $4`,
      [`[${Array.from(vector).join(",")}]`, model, documentIds, limit],
    );
    return rows.map((row) => ({ id: Number(row.id), score: Number(row.score) }));
  }
}
