import { type Static, Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import type { ConsoleApiDeps } from "./deps.ts";

const SessionsQuery = Type.Object({
  search: Type.Optional(Type.String({ maxLength: 200 })),
  limit: Type.Integer({ minimum: 1, maximum: 500, default: 100 }),
});
const MessagesQuery = Type.Object({
  sessionId: Type.Optional(Type.String({ minLength: 1, maxLength: 300 })),
  search: Type.Optional(Type.String({ maxLength: 200 })),
  before: Type.Optional(Type.Integer({ minimum: 1 })),
  limit: Type.Integer({ minimum: 1, maximum: 500, default: 100 }),
});

/** Stored conversations: sessions by latest activity, and their messages, searchable. */
export function registerChatRoutes(app: FastifyInstance, deps: ConsoleApiDeps): void {
  app.get("/api/chats", { schema: { querystring: SessionsQuery } }, async (request) => {
    const query = request.query as Static<typeof SessionsQuery>;
    return {
      sessions: await deps.history.sessions({
        search: query.search?.trim() || undefined,
        limit: query.limit,
      }),
    };
  });

  app.get("/api/chats/messages", { schema: { querystring: MessagesQuery } }, async (request) => {
    const query = request.query as Static<typeof MessagesQuery>;
    const messages = await deps.history.messages({
      sessionId: query.sessionId,
      search: query.search?.trim() || undefined,
      beforeRowId: query.before,
      limit: query.limit,
    });
    return { messages };
  });
}
