import { readFile, stat } from "node:fs/promises";
import { basename } from "node:path";
import type { Embedder } from "../llm/embedder.ts";
import type { Logger } from "../log/logger.ts";
import { EMBEDDING_TASK } from "../memory/turn-recall.ts";
import type {
  ChunkVectors,
  DocumentKind,
  KnowledgeChunk,
  KnowledgeStore,
  NewKnowledgeDocument,
} from "../store/knowledge-types.ts";
import { chunkBlocks } from "./chunks.ts";
import type { KnowledgeSettings } from "./config.ts";
import { documentKindOf, extractDocument } from "./extract.ts";
import { scopeOfFile } from "./scope.ts";

/** Passages embedded per request. */
const EMBED_BATCH = 32;
/** A document's embeddings may take this long in all; past it, it is found by its terms alone. */
const EMBED_TIMEOUT_MS = 60_000;

export interface IndexerDeps {
  store: KnowledgeStore;
  settings: () => KnowledgeSettings;
  /** Embeddings, when `llm.models.embedding` names a model. */
  embedder: () => Pick<Embedder, "configured" | "embed">;
  logger: Logger;
}

/**
 * Reads one document file into the store: its scope, text, passages and (with an embedding
 * model and somewhere to keep vectors) their embeddings. A file that cannot be read is stored
 * with the reason and no passages, so the console shows it; the bot goes on.
 */
export async function indexFile(
  deps: IndexerDeps,
  path: string,
  known?: { modifiedAt: number; bytes: number },
) {
  const kind = documentKindOf(path);
  if (kind === undefined) return;
  const file = await stat(path);
  // Whole milliseconds: both databases keep integers.
  const modifiedAt = Math.floor(file.mtimeMs);
  const { scope, problem } = await scopeOfFile(path);
  if (problem)
    deps.logger.warn(
      { path, problem },
      "knowledge: a scope file cannot be read; the document is used in no chat",
    );
  if (known && known.modifiedAt === modifiedAt && known.bytes === file.size) {
    await deps.store.setScope(path, scope);
    return;
  }
  const settings = deps.settings();
  const document: NewKnowledgeDocument = {
    path,
    kind,
    title: basename(path),
    scope,
    bytes: file.size,
    modifiedAt,
    indexedAt: Date.now(),
  };
  if (file.size > settings.maxFileBytes) {
    const note = `not indexed: ${file.size} bytes, over knowledge.maxFileBytes (${settings.maxFileBytes})`;
    await deps.store.saveDocument({ ...document, note }, []);
    deps.logger.warn({ path }, `knowledge: ${note}`);
    return;
  }
  let chunks: KnowledgeChunk[];
  try {
    const extracted = await extractDocument(kind, await readFile(path), settings);
    chunks = chunkBlocks(extracted.blocks, settings.chunkChars);
    if (extracted.title) document.title = extracted.title;
    if (extracted.note) document.note = extracted.note;
  } catch (error) {
    const note = `cannot be read as ${describe(kind)}: ${(error as Error).message}`;
    await deps.store.saveDocument({ ...document, note }, []);
    deps.logger.warn({ path }, `knowledge: ${note}`);
    return;
  }
  const vectors = await embedChunks(deps, chunks);
  await deps.store.saveDocument(document, chunks, vectors);
  deps.logger.info(
    { path, chunks: chunks.length, vectors: vectors !== undefined },
    "knowledge: document indexed",
  );
}

function describe(kind: DocumentKind): string {
  return kind === "pdf" || kind === "html" ? kind.toUpperCase() : kind === "docx" ? "DOCX" : kind;
}

/** The passages' embeddings, when a model is configured and the store keeps vectors. */
async function embedChunks(deps: IndexerDeps, chunks: KnowledgeChunk[]): Promise<ChunkVectors | undefined> {
  const embedder = deps.embedder();
  if (deps.store.vectorSupport === "none" || !embedder.configured(EMBEDDING_TASK) || chunks.length === 0) {
    return undefined;
  }
  const signal = AbortSignal.timeout(EMBED_TIMEOUT_MS);
  const vectors: Float32Array[] = [];
  let model: string | undefined;
  for (let start = 0; start < chunks.length; start += EMBED_BATCH) {
    const texts = chunks.slice(start, start + EMBED_BATCH).map((chunk) => `${chunk.heading}\n${chunk.text}`);
    const embedding = await embedder.embed({ task: EMBEDDING_TASK, texts, signal });
    // Vectors of two models are never compared: a document is embedded by one model or none.
    if (!embedding || (model !== undefined && embedding.ref !== model)) return undefined;
    model = embedding.ref;
    vectors.push(...embedding.vectors);
  }
  return model === undefined ? undefined : { model, vectors };
}
