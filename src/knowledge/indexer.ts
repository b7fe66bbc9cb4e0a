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
import { documentKindOf } from "./extract.ts";
import { readDocument } from "./readers.ts";
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
 * The note a document has while it is being read. Found at a start, it means the bot stopped
 * during the read (most likely the document took all its memory): the document is then
 * quarantined instead of read again, so it cannot stop every start after.
 */
export const BEING_READ_NOTE = "being read";

/** What a quarantined document's note starts with (the console shows it). */
export const QUARANTINED = "quarantined, not read again until the file changes";

/**
 * Reads one document file into the store: its scope, text, passages and (with an embedding
 * model and somewhere to keep vectors) their embeddings, the text read in a worker thread
 * with a memory and a time limit. A file that cannot be read is stored with the reason and no
 * passages, so the console shows it; the bot goes on. A file that ran out of memory or time
 * (or was being read when the bot stopped) is quarantined: recorded, logged, not retried at
 * the next start unless it changed.
 */
export async function indexFile(
  deps: IndexerDeps,
  path: string,
  known?: { modifiedAt: number; bytes: number; note?: string },
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
  if (known && known.modifiedAt === modifiedAt && known.bytes === file.size) {
    if (known.note === BEING_READ_NOTE) {
      return quarantine(deps, document, "the bot stopped while reading it (it may have run out of memory)");
    }
    await deps.store.setScope(path, scope);
    return;
  }
  if (file.size > settings.maxFileBytes) {
    const note = `not indexed: ${file.size} bytes, over knowledge.maxFileBytes (${settings.maxFileBytes})`;
    await deps.store.saveDocument({ ...document, note }, []);
    deps.logger.warn({ path }, `knowledge: ${note}`);
    return;
  }
  // Kept until the read ends: a start that finds it knows this document stopped the bot.
  await deps.store.saveDocument({ ...document, note: BEING_READ_NOTE }, []);
  const read = await readDocument(kind, await readFile(path), settings);
  if (!read.ok && read.failure !== "error") return quarantine(deps, document, `its reader ${read.reason}`);
  if (!read.ok) {
    const note = `cannot be read as ${describe(kind)}: ${read.reason}`;
    await deps.store.saveDocument({ ...document, note }, []);
    deps.logger.warn({ path }, `knowledge: ${note}`);
    return;
  }
  const chunks: KnowledgeChunk[] = chunkBlocks(read.value.blocks, settings.chunkChars);
  if (read.value.title) document.title = read.value.title;
  if (read.value.note) document.note = read.value.note;
  const vectors = await embedChunks(deps, chunks);
  await deps.store.saveDocument(document, chunks, vectors);
  deps.logger.info(
    { path, chunks: chunks.length, vectors: vectors !== undefined },
    "knowledge: document indexed",
  );
}

async function quarantine(deps: IndexerDeps, document: NewKnowledgeDocument, why: string): Promise<void> {
  const note = `${QUARANTINED}: ${why}`;
  await deps.store.saveDocument({ ...document, note }, []);
  deps.logger.warn({ path: document.path }, `knowledge: ${note}`);
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
