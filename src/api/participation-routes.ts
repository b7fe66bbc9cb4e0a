import { type Static, Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import { readConfigText, saveConfigText, withGroupTalkValue } from "./config-file.ts";
import { notEditable } from "./config-routes.ts";
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

const TalkValueBody = Type.Object(
  {
    group: Type.String({ pattern: "^[0-9A-Za-z_-]{1,64}$", description: "A group id." }),
    talkValue: Type.Number({
      minimum: 0,
      maximum: 1,
      description: "How readily the bot joins unasked there.",
    }),
  },
  { additionalProperties: false },
);

/**
 * Participation for the console: per chat the talkValue in force, quiet, the unasked messages
 * of the last hour and the last decision; quiet switched on or off, and a group's talkValue
 * written into the config file (`chat.groups`) as an edit on the Config page would be.
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

  app.post("/api/participation/talk-value", { schema: { body: TalkValueBody } }, async (request, reply) => {
    const file = deps.configFile;
    if (file === undefined) return notEditable(reply);
    const { group, talkValue } = request.body as Static<typeof TalkValueBody>;
    const saved = saveConfigText(file, withGroupTalkValue(readConfigText(file), group, talkValue), deps.env);
    if (!saved.ok) return reply.code(400).send({ problems: saved.problems });
    deps.logger.info({ file, group, talkValue }, "a group's talkValue set from the console");
    deps.applyConfig(saved.config);
    return { group, talkValue };
  });
}
