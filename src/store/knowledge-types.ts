/** One passage of a document: what is searched and shown, with where it is. */
export interface KnowledgeChunk {
  /** 0-based order within the document. */
  position: number;
  /** The headings above it, outermost first, joined by " › " ("" before any heading). */
  heading: string;
  /** The PDF page it starts on. */
  page?: number;
  text: string;
}

/** The document kinds the knowledge base reads. */
export type DocumentKind = "markdown" | "text" | "html" | "pdf" | "docx";

/**
 * Where a document may be used: in every chat, in the listed groups only, or in private chats
 * only; `autoRetrieve: false` keeps its passages out of prompts (the tool still finds them).
 */
export interface KnowledgeScope {
  chats: "all" | "groups" | "private";
  groups: string[];
  autoRetrieve: boolean;
}

/** A document of the knowledge base as stored: its file, scope and how its indexing went. */
export interface KnowledgeDocument {
  id: number;
  /** The file's absolute path: what identifies it. */
  path: string;
  kind: DocumentKind;
  title: string;
  scope: KnowledgeScope;
  bytes: number;
  /** The file's modification time when it was read (Unix ms): unchanged files are not read again. */
  modifiedAt: number;
  indexedAt: number;
  chunkCount: number;
  /** What was left out, or why nothing could be read (then it has no chunks). */
  note?: string;
}

export type NewKnowledgeDocument = Omit<KnowledgeDocument, "id" | "chunkCount">;

/** A stored passage: its document and place in it. */
export interface StoredChunk extends KnowledgeChunk {
  id: number;
  documentId: number;
}

/** A passage's embeddings by one model, in chunk order. */
export interface ChunkVectors {
  model: string;
  vectors: Float32Array[];
}

/** A search hit before ranking: the passage and its score in one ranking (BM25 or similarity). */
export interface ChunkScore {
  id: number;
  score: number;
}

/** The knowledge base's documents and passages, on SQLite or PostgreSQL. */
export interface KnowledgeStore {
  /**
   * How passages are compared by meaning: `local` (vectors kept with the passages, compared
   * here), `pgvector` (by the database), or `none` (PostgreSQL without pgvector: full-text only).
   */
  readonly vectorSupport: "local" | "pgvector" | "none";
  documents(): Promise<KnowledgeDocument[]>;
  /** Stores a document (replacing what was stored for its path) with its passages, at once; returns its id. */
  saveDocument(
    document: NewKnowledgeDocument,
    chunks: KnowledgeChunk[],
    vectors?: ChunkVectors,
  ): Promise<number>;
  setScope(path: string, scope: KnowledgeScope): Promise<void>;
  removeDocument(path: string): Promise<void>;
  chunksOf(documentId: number): Promise<StoredChunk[]>;
  chunks(ids: number[]): Promise<StoredChunk[]>;
  /** The passages of `documentIds` holding any of `terms`, best BM25 first. */
  searchTerms(terms: string[], documentIds: number[], limit: number): Promise<ChunkScore[]>;
  /** The passages of `documentIds` most similar (cosine) to `vector` of `model`, best first. */
  nearest(vector: Float32Array, model: string, documentIds: number[], limit: number): Promise<ChunkScore[]>;
}
