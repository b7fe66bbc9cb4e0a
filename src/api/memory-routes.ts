import { type Static, Type } from "@sinclair/typebox";
import type { FastifyInstance, FastifyReply } from "fastify";
import { MAX_MEMORY_CHARS } from "../memory/memory-service.ts";
import type { MemoryEntry, MemorySubject } from "../memory/types.ts";
import type { ConsoleApiDeps } from "./deps.ts";
import type { MemoryDetail, MemoryForgetAnswer, MemoryListAnswer } from "./types.ts";

/** How many memories one forget of a group deletes per store round trip. */
const FORGET_PAGE = 500;

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
 * that pages. Every change is announced on the timeline: additions and edits as
 * `memory.learned` (origin `console`), deletions and forgetting as `memory.forgotten` (by
 * `console`).
 */
export function registerMemoryRoutes(app: FastifyInstance, deps: ConsoleApiDeps): void {
  const { memories, monitor } = deps;

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
    const memory = await memories.add({
      subject,
      subjectName: body.subjectName?.trim() || subjectId(subject),
      content: body.content.trim(),
      origin: "console",
      sessionId: CONSOLE_SESSION,
      sources: [],
      at: Date.now(),
    });
    monitor.emit({
      type: "memory.learned",
      data: { origin: "console", added: [briefOf(memory)], updated: [], deleted: [] },
    });
    return { memory };
  });

  app.patch("/api/memory/:id", { schema: { params: IdParams, body: EditBody } }, async (request, reply) => {
    const { id } = request.params as Static<typeof IdParams>;
    const content = (request.body as Static<typeof EditBody>).content.trim();
    const previous = await memories.get(id);
    const memory = previous && (await memories.update(id, { content }));
    if (!previous || !memory) return notFound(reply, id);
    monitor.emit({
      type: "memory.learned",
      data: {
        origin: "console",
        added: [],
        updated: [{ id, content, previous: previous.content }],
        deleted: [],
      },
    });
    return { memory };
  });

  app.delete("/api/memory/:id", { schema: { params: IdParams } }, async (request, reply) => {
    const { id } = request.params as Static<typeof IdParams>;
    const memory = await memories.get(id);
    if (!memory || (await memories.delete([id])) === 0) return notFound(reply, id);
    monitor.emit({ type: "memory.forgotten", data: { subject: memory.subject, ids: [id], by: "console" } });
    return { deleted: id };
  });

  app.delete("/api/memory", { schema: { querystring: ForgetQuery } }, async (request) => {
    const subject = (request.query as Static<typeof ForgetQuery>).subject as MemorySubject;
    const ids = subject.startsWith("person:") ? await forgetPerson(subject) : await forgetAllAbout(subject);
    monitor.emit({ type: "memory.forgotten", data: { subject, ids, by: "console" } });
    const answer: MemoryForgetAnswer = { ids };
    return answer;
  });

  /** As `/forget` does: what is about them, what only they said, and nothing learned again from older messages. */
  async function forgetPerson(subject: MemorySubject): Promise<number[]> {
    const at = Date.now();
    const ids = await memories.forgetPerson(subject, subjectId(subject));
    await memories.markForgotten(subject, at);
    return ids;
  }

  async function forgetAllAbout(subject: MemorySubject): Promise<number[]> {
    const ids: number[] = [];
    for (;;) {
      const page = await memories.list({ subject, limit: FORGET_PAGE });
      if (page.length === 0) return ids;
      const pageIds = page.map((memory) => memory.id);
      // Nothing deleted means another writer holds them: stop rather than list them forever.
      if ((await memories.delete(pageIds)) === 0) return ids;
      ids.push(...pageIds);
    }
  }
}

/** The session a memory written in the console is recorded under: it was learned in no chat. */
const CONSOLE_SESSION = "console";

/** The user or group id a subject names (`person:onebot:10001` → `10001`). */
function subjectId(subject: MemorySubject): string {
  return subject.split(":").slice(2).join(":");
}

/** What the timeline shows of an added memory. */
function briefOf(memory: MemoryEntry) {
  return { id: memory.id, subject: memory.subject, subjectName: memory.subjectName, content: memory.content };
}

function notFound(reply: FastifyReply, id: number) {
  return reply.code(404).send({ error: "not_found", message: `no memory #${id}` });
}
