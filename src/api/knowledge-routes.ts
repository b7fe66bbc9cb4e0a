import { writeFile } from "node:fs/promises";
import { basename, join, relative } from "node:path";
import { type Static, Type } from "@sinclair/typebox";
import type { FastifyInstance, FastifyReply } from "fastify";
import { stringify } from "yaml";
import { documentKindOf } from "../knowledge/extract.ts";
import type { KnowledgeService } from "../knowledge/knowledge-service.ts";
import { sourceOf } from "../knowledge/passages.ts";
import { SIDECAR_SUFFIX, scopeSchema } from "../knowledge/scope.ts";
import type { KnowledgeDocument, KnowledgeScope } from "../store/knowledge-types.ts";
import type { ConsoleApiDeps } from "./deps.ts";

const IdParams = Type.Object({ id: Type.Integer({ minimum: 1 }) });
const ScopeBody = Type.Object(
  {
    chats: scopeSchema.properties.chats,
    groups: Type.Array(Type.String({ minLength: 1, maxLength: 64, pattern: "^\\S+$" }), { maxItems: 1000 }),
    autoRetrieve: Type.Boolean(),
  },
  { additionalProperties: false },
);
const UploadBody = Type.Object(
  {
    /** The file's name: kept as its name in the folder, so its kind goes by its extension. */
    name: Type.String({ minLength: 1, maxLength: 200, pattern: "^[^/\\\\]+$" }),
    contentBase64: Type.String({ minLength: 1 }),
    scope: Type.Optional(ScopeBody),
  },
  { additionalProperties: false },
);
const QueryBody = Type.Object(
  {
    query: Type.String({ minLength: 1, maxLength: 2000 }),
    /** The chat the question is asked in: only documents whose scope admits it are searched. */
    sessionId: Type.String({ pattern: "^[^:]+:[^:]+:(group|private):.+$", maxLength: 300 }),
    limit: Type.Integer({ minimum: 1, maximum: 50, default: 10 }),
  },
  { additionalProperties: false },
);

/**
 * The console's knowledge page: the documents with their scopes and what indexing said, a
 * document's passages, its scope changed (written to its sidecar, so the folder stays the
 * source of truth), a document uploaded into the first knowledge folder, and a question asked
 * as a chat would ask it, with the scores that ranked each passage found.
 */
export function registerKnowledgeRoutes(app: FastifyInstance, deps: ConsoleApiDeps): void {
  const knowledge = deps.knowledge;
  const folder = () => knowledge.uploadDir();
  const view = (document: KnowledgeDocument) => ({
    ...document,
    name: folderName(knowledge, document.path),
  });

  app.get("/api/knowledge", async () => ({
    documents: knowledge.list().map(view),
    folder: folder() ?? null,
    vectorSupport: knowledge.vectorSupport(),
    searchMethod: knowledge.searchMethod(),
  }));

  app.get("/api/knowledge/:id/chunks", { schema: { params: IdParams } }, async (request, reply) => {
    const { id } = request.params as Static<typeof IdParams>;
    const document = knowledge.list().find((known) => known.id === id);
    if (!document) return notFound(reply, id);
    return { document: view(document), chunks: await knowledge.chunksOf(id) };
  });

  app.put(
    "/api/knowledge/:id/scope",
    { schema: { params: IdParams, body: ScopeBody } },
    async (request, reply) => {
      const { id } = request.params as Static<typeof IdParams>;
      const document = knowledge.list().find((known) => known.id === id);
      if (!document) return notFound(reply, id);
      await writeScope(document.path, request.body as KnowledgeScope);
      await knowledge.reindex(document.path);
      return { document: view(knowledge.list().find((known) => known.path === document.path)!) };
    },
  );

  app.post("/api/knowledge/upload", { schema: { body: UploadBody } }, async (request, reply) => {
    const body = request.body as Static<typeof UploadBody>;
    const target = folder();
    if (target === undefined)
      return reply.code(409).send({ error: "no knowledge folder is configured (knowledge.dirs)" });
    const name = basename(body.name);
    if (documentKindOf(name) === undefined) {
      return reply
        .code(400)
        .send({ error: "only .md, .markdown, .txt, .html, .htm, .pdf and .docx files are read" });
    }
    const path = join(target, name);
    // The sidecar first: the watcher must never see the document without its scope.
    if (body.scope) await writeScope(path, body.scope);
    await writeFile(path, Buffer.from(body.contentBase64, "base64"));
    await knowledge.reindex(path);
    const document = knowledge.list().find((known) => known.path === path);
    return document
      ? { document: view(document) }
      : reply.code(500).send({ error: "the document was not indexed" });
  });

  app.post("/api/knowledge/query", { schema: { body: QueryBody } }, async (request) => {
    const body = request.body as Static<typeof QueryBody>;
    const hits = await knowledge.search(body.query, body.sessionId, { limit: body.limit });
    return {
      hits: hits.map((hit) => ({
        documentId: hit.document.id,
        chunkId: hit.chunk.id,
        source: sourceOf(hit),
        text: hit.chunk.text,
        score: hit.score,
        bm25: hit.bm25 ?? null,
        similarity: hit.similarity ?? null,
        autoRetrieve: hit.document.scope.autoRetrieve,
      })),
    };
  });
}

/** A document's path as the console shows it: within its knowledge folder. */
function folderName(knowledge: KnowledgeService, path: string): string {
  const dir = knowledge.folderOf(path);
  return dir === undefined ? path : relative(dir, path);
}

function writeScope(path: string, scope: KnowledgeScope): Promise<void> {
  return writeFile(`${path}${SIDECAR_SUFFIX}`, stringify(scope));
}

function notFound(reply: FastifyReply, id: number) {
  return reply.code(404).send({ error: `no document #${id}` });
}
