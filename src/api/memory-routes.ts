import { type Static, Type } from "@sinclair/typebox";
import type { FastifyInstance, FastifyReply } from "fastify";
import { MAX_MEMORY_CHARS } from "../memory/memory-service.ts";
import type { MemorySubject } from "../memory/types.ts";
import type { ConsoleApiDeps } from "./deps.ts";
import type { MemoryDetail, MemoryForgetAnswer, MemoryListAnswer } from "./types.ts";

/** `person:<platform>:<userId>` or `group:<platform>:<groupId>`. */
const Subject = Type.String({ pattern: "^(person|group):[^:\\s]+:\\S+$", maxLength: 300 });
/** A fact: one short sentence as the tools take it, trimmed by the route, never blank. */
const Content = Type.String({ minLength: 1, maxLength: MAX_MEMORY_CHARS, pattern: "\\S" });

const ListQuery = Type.Object({
  search: Type.Optional(Type.String({ maxLength: 200 })),
  subject: Type.Optional(Subject),
  beforeId: Type.Optional(Type.Integer({ minimum: 1 })),
  limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
});
const IdParams = Type.Object({ id: Type.Integer({ minimum: 1 }) });
const EditBody = Type.Object({ content: Content }, { additionalProperties: false });
const NewBody = Type.Object(
  {
    subject: Subject,
    content: Content,
    subjectName: Type.Optional(Type.String({ maxLength: 100 })),
  },
  { additionalProperties: false },
);
const ForgetQuery = Type.Object({ subject: Subject });

/**
 * Long-term memory for the console's memory page: list (a subject's memories, or those whose
 * content or subject name contains the search text, newest change first, paged by id), one
 * memory with the stored messages it was learned from, add, edit, delete, and forget a whole
 * person or group. The search is a plain substring match rather than recall's ranked one: an
 * admin looking for what the bot knows wants every entry that says it, in a stable order
 * that pages. Changes go through the memory service, as the tools', commands' and plugins' do:
 * announced on the timeline (`memory.learned` with origin `console`, `memory.forgotten` by
 * `console`), re-embedded when an embedding model is set.
 */
export function registerMemoryRoutes(app: FastifyInstance, deps: ConsoleApiDeps): void {
  const { memories, memory } = deps;

  app.get("/api/memory", { schema: { querystring: ListQuery } }, async (request) => {
    const query = request.query as Static<typeof ListQuery>;
    const page: MemoryListAnswer = {
      memories: await memories.list({
        subject: query.subject as MemorySubject | undefined,
        search: query.search?.trim() || undefined,
        beforeId: query.beforeId,
        limit: query.limit,
      }),
    };
    return page;
  });

  app.get("/api/memory/:id", { schema: { params: IdParams } }, async (request, reply) => {
    const { id } = request.params as Static<typeof IdParams>;
    const memory = await memories.get(id);
    if (!memory) return notFound(reply, id);
    const sources = await Promise.all(
      memory.sources.map(async (source) => ({
        ...source,
        message: (await deps.messages.findByMessageId(source.sessionId, source.messageId)) ?? null,
      })),
    );
    const detail: MemoryDetail = { memory, sources };
    return detail;
  });

  app.post("/api/memory", { schema: { body: NewBody } }, async (request) => {
    const body = request.body as Static<typeof NewBody>;
    const subject = body.subject as MemorySubject;
    // Like any other writer: the same fact already known is reworded and confirmed, not repeated.
    const { entry } = await memory.remember({
      subject,
      subjectName: body.subjectName?.trim() || subjectId(subject),
      content: body.content.trim(),
      origin: "console",
      sessionId: CONSOLE_SESSION,
      sources: [],
      place: { platform: subject.split(":")[1] ?? "", sessionId: CONSOLE_SESSION },
    });
    return { memory: entry };
  });

  app.patch("/api/memory/:id", { schema: { params: IdParams, body: EditBody } }, async (request, reply) => {
    const { id } = request.params as Static<typeof IdParams>;
    const edited = await memory.edit(id, (request.body as Static<typeof EditBody>).content, "console");
    return edited ? { memory: edited } : notFound(reply, id);
  });

  app.delete("/api/memory/:id", { schema: { params: IdParams } }, async (request, reply) => {
    const { id } = request.params as Static<typeof IdParams>;
    const entry = await memories.get(id);
    if (!entry || !(await memory.forgetEntry(entry, undefined, "console"))) return notFound(reply, id);
    return { deleted: id };
  });

  app.delete("/api/memory", { schema: { querystring: ForgetQuery } }, async (request) => {
    const subject = (request.query as Static<typeof ForgetQuery>).subject as MemorySubject;
    const answer: MemoryForgetAnswer = { ids: await memory.forgetSubject(subject, undefined, "console") };
    return answer;
  });
}

/** The session a memory written in the console is recorded under: it was learned in no chat. */
const CONSOLE_SESSION = "console";

/** The user or group id a subject names (`person:onebot:10001` → `10001`). */
function subjectId(subject: MemorySubject): string {
  return subject.split(":").slice(2).join(":");
}

function notFound(reply: FastifyReply, id: number) {
  return reply.code(404).send({ error: "not_found", message: `no memory #${id}` });
}
