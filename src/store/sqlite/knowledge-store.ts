import type { Database } from "better-sqlite3";
import {
  byCosine,
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
import { decodeVector, encodeVector } from "../memory-vectors.ts";

/** A document as one token of the full-text index. */
const documentToken = (id: number) => `d${id}`;

/**
 * The knowledge base on SQLite: passages in `knowledge_chunks`, their terms in the FTS5 table
 * `knowledge_terms` (BM25 by FTS5 itself), vectors compared here. A document's passages are
 * replaced in one transaction, so a search never sees half a document.
 */
export class SqliteKnowledgeStore implements KnowledgeStore {
  readonly vectorSupport = "local";
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  async documents(): Promise<KnowledgeDocument[]> {
    return toKnowledgeDocuments(this.#db.prepare(DOCUMENTS_QUERY).all());
  }

  async saveDocument(
    document: NewKnowledgeDocument,
    chunks: KnowledgeChunk[],
    vectors?: ChunkVectors,
  ): Promise<number> {
    const db = this.#db;
    return db.transaction(() => {
      this.#remove(document.path);
      const id = Number(
        db
          .prepare(
            `INSERT INTO knowledge_documents (${NEW_DOCUMENT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
          )
          .run(newDocumentValues(document)).lastInsertRowid,
      );
      const insertChunk = db.prepare(
        `INSERT INTO knowledge_chunks (document_id, position, heading, page, text, vector, vector_model)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      );
      const insertTerms = db.prepare("INSERT INTO knowledge_terms (rowid, terms, document) VALUES (?, ?, ?)");
      for (const [index, chunk] of chunks.entries()) {
        const vector = vectors?.vectors[index];
        const chunkId = insertChunk.run(
          id,
          chunk.position,
          chunk.heading,
          chunk.page ?? null,
          chunk.text,
          vector ? encodeVector(vector) : null,
          vector ? vectors!.model : null,
        ).lastInsertRowid;
        insertTerms.run(chunkId, chunkTerms(chunk).join(" "), documentToken(id));
      }
      return id;
    })();
  }

  async setScope(path: string, scope: KnowledgeScope): Promise<void> {
    this.#db
      .prepare("UPDATE knowledge_documents SET scope = ? WHERE path = ?")
      .run(JSON.stringify(scope), path);
  }

  async removeDocument(path: string): Promise<void> {
    this.#db.transaction(() => this.#remove(path))();
  }

  #remove(path: string): void {
    const db = this.#db;
    const row = db.prepare("SELECT id FROM knowledge_documents WHERE path = ?").get(path) as
      | { id: number }
      | undefined;
    if (row === undefined) return;
    db.prepare(
      "DELETE FROM knowledge_terms WHERE rowid IN (SELECT id FROM knowledge_chunks WHERE document_id = ?)",
    ).run(row.id);
    db.prepare("DELETE FROM knowledge_chunks WHERE document_id = ?").run(row.id);
    db.prepare("DELETE FROM knowledge_documents WHERE id = ?").run(row.id);
  }

  async chunksOf(documentId: number): Promise<StoredChunk[]> {
    return toStoredChunks(
      this.#db
        .prepare(`SELECT ${CHUNK_COLUMNS} FROM knowledge_chunks WHERE document_id = ? ORDER BY position`)
        .all(documentId),
    );
  }

  async chunks(ids: number[]): Promise<StoredChunk[]> {
    return toStoredChunks(
      this.#db
        .prepare(`SELECT ${CHUNK_COLUMNS} FROM knowledge_chunks WHERE id IN (SELECT value FROM json_each(?))`)
        .all(JSON.stringify(ids)),
    );
  }

  async searchTerms(terms: string[], documentIds: number[], limit: number): Promise<ChunkScore[]> {
    if (terms.length === 0 || documentIds.length === 0) return [];
    // Terms hold only letters and digits, document tokens too: quoting needs no escaping.
    const match = `document : (${documentIds.map((id) => `"${documentToken(id)}"`).join(" OR ")}) AND terms : (${terms
      .map((term) => `"${term}"`)
      .join(" OR ")})`;
    // bm25() is lower for better matches; the document column carries no weight.
    const rows = this.#db
      .prepare(
        `SELECT rowid AS id, -bm25(knowledge_terms, 1.0, 0.0) AS score FROM knowledge_terms
         WHERE knowledge_terms MATCH ? ORDER BY score DESC, rowid LIMIT ?`,
      )
      .all(match, limit) as ChunkScore[];
    return rows;
  }

  async nearest(
    vector: Float32Array,
    model: string,
    documentIds: number[],
    limit: number,
  ): Promise<ChunkScore[]> {
    const rows = this.#db
      .prepare(
        `SELECT id, vector FROM knowledge_chunks
         WHERE vector_model = ? AND document_id IN (SELECT value FROM json_each(?))`,
      )
      .all(model, JSON.stringify(documentIds)) as { id: number; vector: Buffer }[];
    return byCosine(new Map(rows.map((row) => [row.id, decodeVector(row.vector)])), vector, limit);
  }
}
