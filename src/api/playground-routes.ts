import { type Static, Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import { CONSOLE_SELF_ID } from "../adapters/console/console-adapter.ts";
import type { Segment } from "../message/segment.ts";
import { formatSessionId } from "../message/session-id.ts";
import type { ConsoleApiDeps } from "./deps.ts";
import { openEventStream } from "./event-stream.ts";
import { isModelConfigured } from "./status-routes.ts";

const Id = Type.String({ minLength: 1, maxLength: 64, pattern: "^[A-Za-z0-9_-]+$" });

/** What can be typed in the playground: text, mentions, a quote and pictures (inline only). */
const PlaygroundSegment = Type.Union([
  Type.Object({ type: Type.Literal("text"), data: Type.Object({ text: Type.String({ minLength: 1 }) }) }),
  Type.Object({
    type: Type.Literal("at"),
    data: Type.Object({ qq: Id, name: Type.Optional(Type.String()) }),
  }),
  Type.Object({ type: Type.Literal("reply"), data: Type.Object({ id: Id }) }),
  Type.Object({
    type: Type.Literal("image"),
    data: Type.Object({
      file: Type.String({ pattern: "^base64://[A-Za-z0-9+/=]+$" }),
      summary: Type.Optional(Type.String()),
    }),
  }),
]);

const PostBody = Type.Object({
  chatType: Type.Union([Type.Literal("group"), Type.Literal("private")]),
  groupId: Type.Optional(Id),
  userId: Id,
  senderName: Type.String({ minLength: 1, maxLength: 64 }),
  segments: Type.Array(PlaygroundSegment, { minItems: 1, maxItems: 50 }),
});

const HistoryQuery = Type.Object({
  chatType: Type.Union([Type.Literal("group"), Type.Literal("private")]),
  peerId: Id,
  limit: Type.Integer({ minimum: 1, maximum: 500, default: 100 }),
});

/**
 * The playground: post a message as any user into a simulated group or private chat, read a
 * chat's stored history, and follow every playground message (the bot's replies included)
 * as server-sent events.
 */
export function registerPlaygroundRoutes(app: FastifyInstance, deps: ConsoleApiDeps): void {
  app.get("/api/playground", async () => {
    const config = deps.config();
    return { selfId: CONSOLE_SELF_ID, botName: config.bot.name, modelConfigured: isModelConfigured(config) };
  });

  app.get("/api/playground/messages", { schema: { querystring: HistoryQuery } }, async (request) => {
    const query = request.query as Static<typeof HistoryQuery>;
    const sessionId = formatSessionId({
      platform: deps.playground.platform,
      selfId: CONSOLE_SELF_ID,
      chatType: query.chatType,
      peerId: query.peerId,
    });
    return { messages: (await deps.history.messages({ sessionId, limit: query.limit })).reverse() };
  });

  app.post("/api/playground/messages", { schema: { body: PostBody } }, async (request, reply) => {
    const body = request.body as Static<typeof PostBody>;
    if (body.chatType === "group" && body.groupId === undefined) {
      return reply.code(400).send({ error: "bad_request", message: "groupId is required in a group chat" });
    }
    const message = deps.playground.receive({ ...body, segments: body.segments as Segment[] });
    return reply.code(201).send({ message });
  });

  app.get("/api/playground/stream", async (_request, reply) => {
    openEventStream(reply, (send) => deps.playground.subscribe((message) => send("message", message)));
  });
}
