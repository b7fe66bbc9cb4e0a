import { type Static, Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import type { ConsoleApiDeps } from "./deps.ts";

const QuietBody = Type.Object(
  {
    chat: Type.String({
      minLength: 1,
      maxLength: 200,
      description: "A session id, or a group id (all its sessions).",
    }),
    minutes: Type.Integer({ minimum: 0, maximum: 7 * 24 * 60, description: "How long; 0 ends the quiet." }),
  },
  { additionalProperties: false },
);

/**
 * Participation for the console: per chat the talkValue in force, quiet, the unasked messages
 * of the last hour and the last decision; and quiet switched on or off from the console.
 */
export function registerParticipationRoutes(app: FastifyInstance, deps: ConsoleApiDeps): void {
  app.get("/api/participation", async () => ({ chats: deps.participation.chats() }));

  app.post("/api/participation/quiet", { schema: { body: QuietBody } }, async (request, reply) => {
    const { chat, minutes } = request.body as Static<typeof QuietBody>;
    const sessions = deps.participation.sessionsOf(chat);
    if (sessions.length === 0)
      return reply.code(404).send({ error: "no_such_chat", message: `no chat "${chat}" seen since start` });
    const quietUntil = sessions.map((sessionId) => deps.participation.quiet(sessionId, minutes))[0]!;
    return { sessions, quietUntil: quietUntil > 0 ? quietUntil : null };
  });
}
