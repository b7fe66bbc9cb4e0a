import { cosine } from "../util/vectors.ts";
import type {
  ChunkScore,
  DocumentKind,
  KnowledgeChunk,
  KnowledgeDocument,
  KnowledgeScope,
  NewKnowledgeDocument,
  StoredChunk,
} from "./knowledge-types.ts";
import { memoryQueryTerms, memoryTerms } from "./memory-terms.ts";

/** Knowledge rows as both databases hold them, and the terms passages are indexed by. */

export const DOCUMENT_COLUMNS = "id, path, kind, title, scope, bytes, modified_at, indexed_at, note";
export const CHUNK_COLUMNS = "id, document_id, position, heading, page, text";

/** The columns a new document is inserted with, in the order of `newDocumentValues`. */
export const NEW_DOCUMENT_COLUMNS = "path, kind, title, scope, bytes, modified_at, indexed_at, note";

interface DocumentRow {
  id: number | string;
  path: string;
  kind: string;
  title: string;
  scope: string;
  bytes: number | string;
  modified_at: number | string;
  indexed_at: number | string;
  note: string | null;
  chunk_count: number | string;
}

interface ChunkRow {
  id: number | string;
  document_id: number | string;
  position: number;
  heading: string;
  page: number | null;
  text: string;
}

/** The documents with their passage counts, by path. */
export const DOCUMENTS_QUERY = `SELECT ${DOCUMENT_COLUMNS.split(", ")
  .map((column) => `d.${column}`)
  .join(", ")},
    (SELECT COUNT(*) FROM knowledge_chunks c WHERE c.document_id = d.id) AS chunk_count
  FROM knowledge_documents d ORDER BY d.path`;

/** The values of `NEW_DOCUMENT_COLUMNS` for `document`. */
export function newDocumentValues(document: NewKnowledgeDocument): unknown[] {
  return [
    document.path,
    document.kind,
    document.title,
    JSON.stringify(document.scope),
    document.bytes,
    document.modifiedAt,
    document.indexedAt,
    document.note ?? null,
  ];
}

/** Rows of `DOCUMENTS_QUERY` as documents. */
export function toKnowledgeDocuments(rows: unknown[]): KnowledgeDocument[] {
  return (rows as DocumentRow[]).map(toKnowledgeDocument);
}

/** Rows of `CHUNK_COLUMNS` as passages. */
export function toStoredChunks(rows: unknown[]): StoredChunk[] {
  return (rows as ChunkRow[]).map(toStoredChunk);
}

function toKnowledgeDocument(row: DocumentRow): KnowledgeDocument {
  return {
    id: Number(row.id),
    path: row.path,
    kind: row.kind as DocumentKind,
    title: row.title,
    scope: JSON.parse(row.scope) as KnowledgeScope,
    bytes: Number(row.bytes),
    modifiedAt: Number(row.modified_at),
    indexedAt: Number(row.indexed_at),
    chunkCount: Number(row.chunk_count),
    ...(row.note === null ? {} : { note: row.note }),
  };
}

function toStoredChunk(row: ChunkRow): StoredChunk {
  return {
    id: Number(row.id),
    documentId: Number(row.document_id),
    position: row.position,
    heading: row.heading,
    ...(row.page === null ? {} : { page: row.page }),
    text: row.text,
  };
}

/** What a passage is found by: its headings and its text, as memory's terms (CJK bigrams, words). */
export function chunkTerms(chunk: KnowledgeChunk): string[] {
  return memoryTerms(`${chunk.heading}\n${chunk.text}`);
}

/** The distinct terms a knowledge search for `query` matches. */
export function knowledgeQueryTerms(query: string): string[] {
  return memoryQueryTerms(query);
}

/** Cosine similarity of every vector to `query`, best first. */
export function byCosine(
  vectors: Map<number, Float32Array>,
  query: Float32Array,
  limit: number,
): ChunkScore[] {
  const scores: ChunkScore[] = [];
  for (const [id, vector] of vectors) scores.push({ id, score: cosine(vector, query) });
  return scores.sort((a, b) => b.score - a.score || a.id - b.id).slice(0, limit);
}
