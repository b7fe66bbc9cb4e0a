import type { Dirent } from "node:fs";
import { mkdir, readdir } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import { type FSWatcher, watch } from "chokidar";
import type { Embedder } from "../llm/embedder.ts";
import type { Logger } from "../log/logger.ts";
import { EMBEDDING_TASK } from "../memory/turn-recall.ts";
import { knowledgeQueryTerms } from "../store/knowledge-rows.ts";
import type { KnowledgeDocument, KnowledgeStore, StoredChunk } from "../store/knowledge-types.ts";
import type { KnowledgeSettings } from "./config.ts";
import { documentKindOf } from "./extract.ts";
import { indexFile } from "./indexer.ts";
import { admits, isScopeFile, SIDECAR_SUFFIX } from "./scope.ts";

/** Candidates each ranking (terms, vectors) contributes before they are fused. */
const CANDIDATES = 50;
/** Reciprocal rank fusion's constant: how much a lower rank still counts. */
const FUSION_K = 60;
/**
 * Passages less similar to the query than this are no vector candidates: common embedding
 * models put unrelated texts below it, and every passage would otherwise rank somewhere.
 */
const MIN_SIMILARITY = 0.3;
/** A query waits this long for its embedding, then is ranked by terms alone. */
const QUERY_EMBEDDING_TIMEOUT_MS = 2_000;
/** A changed file is read once it has been quiet this long (an editor writes in steps). */
const SETTLE_MS = 300;

export interface KnowledgeServiceDeps {
  store: KnowledgeStore;
  settings: () => KnowledgeSettings;
  embedder: () => Pick<Embedder, "configured" | "embed">;
  logger: Logger;
}

/** One passage a search found, with the scores that placed it. */
export interface KnowledgeHit {
  chunk: StoredChunk;
  document: KnowledgeDocument;
  /** Fused rank score (higher is better). */
  score: number;
  /** BM25 relevance, when its terms matched. */
  bm25?: number;
  /** Cosine similarity to the query, when both have vectors. */
  similarity?: number;
}

/**
 * The knowledge base: keeps the documents of `knowledge.dirs` indexed (at start and whenever
 * a file or its scope changes) and searches them for a chat, only among the documents whose
 * scope admits it. Terms (BM25) and, with an embedding model, vectors each rank the passages;
 * the two rankings are fused by reciprocal rank.
 */
export class KnowledgeService {
  private documents: KnowledgeDocument[] = [];
  private watcher: FSWatcher | undefined;
  private readonly timers = new Map<string, NodeJS.Timeout>();
  /** Index work in order: one file at a time, so a file changing twice is never read twice at once. */
  private work: Promise<void> = Promise.resolve();
  private dirs: string[] = [];
  private stopped = false;

  constructor(private readonly deps: KnowledgeServiceDeps) {}

  /** Indexes what changed in the folders since the last run, then watches them. */
  async start(): Promise<void> {
    this.dirs = this.deps.settings().dirs.map((dir) => resolve(dir));
    const { store, logger } = this.deps;
    if (store.vectorSupport === "none" && this.deps.embedder().configured(EMBEDDING_TASK)) {
      logger.info("knowledge: PostgreSQL has no pgvector, so documents are searched by full text only");
    }
    const stored = new Map((await store.documents()).map((document) => [document.path, document]));
    const files = (await Promise.all(this.dirs.map((dir) => filesUnder(dir)))).flat();
    for (const path of files) {
      if (this.stopped) return;
      const known = stored.get(path);
      await this.guarded(path, () => indexFile(this.deps, path, known));
      stored.delete(path);
    }
    for (const path of stored.keys()) await store.removeDocument(path);
    await this.refresh();
    if (files.length > 0) logger.info({ documents: this.documents.length }, "knowledge base ready");
    if (this.stopped) return;
    // chokidar watches a missing folder through its parent and reads the whole parent again on
    // every write there: with the default ./knowledge absent, each database commit and log line
    // in the working directory cost a directory scan (a tenth of the CPU under a message flood).
    await Promise.all(this.dirs.map((dir) => createFolder(dir, logger)));
    this.watcher = watch(this.dirs, { ignoreInitial: true, depth: 10 });
    this.watcher.on("all", (_event, path) => this.changed(path));
    this.watcher.on("error", (error) =>
      logger.warn({ err: error }, "knowledge: watching the folders failed"),
    );
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    await this.watcher?.close();
    await this.work;
  }

  /** The folder uploads go to: the first of `knowledge.dirs`. */
  uploadDir(): string | undefined {
    return this.dirs[0];
  }

  list(): KnowledgeDocument[] {
    return this.documents;
  }

  /** The knowledge folder a document is in. */
  folderOf(path: string): string | undefined {
    return this.dirs.find((dir) => !relative(dir, path).startsWith(".."));
  }

  vectorSupport(): KnowledgeStore["vectorSupport"] {
    return this.deps.store.vectorSupport;
  }

  /**
   * How a question is really searched: by its words always, and by meaning too only when an
   * embedding model is configured and the store keeps vectors.
   */
  searchMethod(): "keywords" | "keywords+vectors" {
    const vectors =
      this.deps.store.vectorSupport !== "none" && this.deps.embedder().configured(EMBEDDING_TASK);
    return vectors ? "keywords+vectors" : "keywords";
  }

  chunksOf(documentId: number): Promise<StoredChunk[]> {
    return this.deps.store.chunksOf(documentId);
  }

  /** Whether any passage may be used in the chat: `search_knowledge` is offered there. */
  offeredIn(sessionId: string): boolean {
    return this.documents.some((document) => document.chunkCount > 0 && admits(document.scope, sessionId));
  }

  /** A file or its scope changed: indexed again once quiet. */
  changed(path: string): void {
    for (const target of isScopeFile(path) ? this.documentsOfScopeFile(path) : [path]) {
      clearTimeout(this.timers.get(target));
      this.timers.set(
        target,
        setTimeout(() => {
          this.timers.delete(target);
          void this.reindex(target);
        }, SETTLE_MS),
      );
    }
  }

  /** Reads one file again now (or removes it when gone); resolves once the index holds it. */
  reindex(path: string): Promise<void> {
    if (documentKindOf(path) === undefined) return Promise.resolve();
    const known = this.documents.find((document) => document.path === path);
    return this.guarded(path, async () => {
      try {
        await indexFile(this.deps, path, known);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
        await this.deps.store.removeDocument(path);
        this.deps.logger.info({ path }, "knowledge: document removed");
      }
      await this.refresh();
    });
  }

  /** The passages of the documents the chat may read that best answer `query`. */
  async search(
    query: string,
    sessionId: string,
    options: { limit: number; forPrompt?: boolean },
  ): Promise<KnowledgeHit[]> {
    const readable = this.documents.filter(
      (document) =>
        document.chunkCount > 0 &&
        admits(document.scope, sessionId) &&
        (!options.forPrompt || document.scope.autoRetrieve),
    );
    if (readable.length === 0 || query.trim() === "") return [];
    const ids = readable.map((document) => document.id);
    const { store } = this.deps;
    const embedder = this.deps.embedder();
    const embedding =
      store.vectorSupport !== "none" && embedder.configured(EMBEDDING_TASK)
        ? embedder.embed({
            task: EMBEDDING_TASK,
            texts: [query],
            sessionId,
            signal: AbortSignal.timeout(QUERY_EMBEDDING_TIMEOUT_MS),
          })
        : undefined;
    const byTerms = await store.searchTerms(knowledgeQueryTerms(query), ids, CANDIDATES);
    const queryVector = await embedding;
    const byVector = queryVector
      ? (await store.nearest(queryVector.vectors[0]!, queryVector.ref, ids, CANDIDATES)).filter(
          (hit) => hit.score >= MIN_SIMILARITY,
        )
      : [];
    const fused = new Map<number, { score: number; bm25?: number; similarity?: number }>();
    for (const [rank, hit] of byTerms.entries()) {
      fused.set(hit.id, { score: 1 / (FUSION_K + rank + 1), bm25: hit.score });
    }
    for (const [rank, hit] of byVector.entries()) {
      const entry = fused.get(hit.id) ?? { score: 0 };
      fused.set(hit.id, { ...entry, score: entry.score + 1 / (FUSION_K + rank + 1), similarity: hit.score });
    }
    const best = [...fused].sort((a, b) => b[1].score - a[1].score || a[0] - b[0]).slice(0, options.limit);
    const chunks = new Map((await store.chunks(best.map(([id]) => id))).map((chunk) => [chunk.id, chunk]));
    const documents = new Map(readable.map((document) => [document.id, document]));
    return best.flatMap(([id, scores]) => {
      const chunk = chunks.get(id);
      const document = chunk && documents.get(chunk.documentId);
      return chunk && document ? [{ chunk, document, ...scores }] : [];
    });
  }

  /** The document a sidecar belongs to, or every document of the folder a `scopes.yaml` is in. */
  private documentsOfScopeFile(path: string): string[] {
    if (path.endsWith(SIDECAR_SUFFIX)) return [path.slice(0, -SIDECAR_SUFFIX.length)];
    return this.documents
      .map((document) => document.path)
      .filter((known) => dirname(known) === dirname(path));
  }

  private async refresh(): Promise<void> {
    this.documents = await this.deps.store.documents();
  }

  /** Runs one file's index work after the work before it; a failure is logged, the rest goes on. */
  private guarded(path: string, task: () => Promise<void>): Promise<void> {
    const run = this.work.then(task).catch((error: unknown) => {
      this.deps.logger.warn({ path, err: error }, "knowledge: indexing a document failed");
    });
    this.work = run;
    return run;
  }
}

/** Every document file under `dir` (none when it does not exist). */
/** Creates a knowledge folder that is not there yet (documents and uploads go into it); a failure is logged, not fatal. */
async function createFolder(dir: string, logger: Logger): Promise<void> {
  try {
    await mkdir(dir, { recursive: true });
  } catch (error) {
    logger.warn({ err: error, dir }, "knowledge: could not create the folder");
  }
}

async function filesUnder(dir: string): Promise<string[]> {
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true, recursive: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .filter((path) => documentKindOf(path) !== undefined)
    .sort();
}
