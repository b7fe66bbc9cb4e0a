import { type Static, Type } from "@sinclair/typebox";
import type { FastifyInstance, FastifyReply } from "fastify";
import type { ListedGroup } from "../context/group-list.ts";
import { expressionSchema } from "../expressions/learn-answer.ts";
import type { GroupActivity } from "../store/group-types.ts";
import type { ConsoleApiDeps } from "./deps.ts";
import type { GroupExpressionsAnswer, GroupsAnswer, GroupView } from "./types.ts";

/** Most groups listed with their activity: those with the newest messages. */
const MAX_GROUPS = 500;

/** A group chat's session id (`onebot:10000:group:20000`). */
const GroupSession = Type.String({ pattern: "^[^:\\s]+:[^:\\s]+:group:\\S+$", maxLength: 300 });
const SessionQuery = Type.Object({ sessionId: GroupSession });
const IdParams = Type.Object({ id: Type.Integer({ minimum: 1 }) });
const EditBody = Type.Composite([Type.Object({ sessionId: GroupSession }), expressionSchema], {
  additionalProperties: false,
});

/**
 * The console's Groups page: the groups the bot is in (its accounts' group lists and the groups
 * it has stored messages of) with their activity and the bot's share of it, and each group's
 * learned expressions, edited and deleted one by one. An edit or deletion while a learning pass
 * runs makes that pass's result be dropped, so the change stays.
 */
export function registerGroupRoutes(app: FastifyInstance, deps: ConsoleApiDeps): void {
  const { groups } = deps;

  app.get("/api/groups", async () => {
    const [active, listed] = await Promise.all([groups.activity(Date.now(), MAX_GROUPS), deps.listGroups()]);
    const answer: GroupsAnswer = { groups: mergeGroups(active, listed) };
    return answer;
  });

  app.get("/api/groups/expressions", { schema: { querystring: SessionQuery } }, async (request) => {
    const { sessionId } = request.query as Static<typeof SessionQuery>;
    const answer: GroupExpressionsAnswer = { sessionId, expressions: await groups.expressions(sessionId) };
    return answer;
  });

  app.patch(
    "/api/groups/expressions/:id",
    { schema: { params: IdParams, body: EditBody } },
    async (request, reply) => {
      const { id } = request.params as Static<typeof IdParams>;
      const { sessionId, expression, meaning, example } = request.body as Static<typeof EditBody>;
      const change = { expression: expression.trim(), meaning: meaning.trim(), example: example.trim() };
      const edited = await groups.edit(sessionId, id, change, Date.now());
      return edited ? { expression: edited } : notFound(reply, id);
    },
  );

  app.delete(
    "/api/groups/expressions/:id",
    { schema: { params: IdParams, querystring: SessionQuery } },
    async (request, reply) => {
      const { id } = request.params as Static<typeof IdParams>;
      const { sessionId } = request.query as Static<typeof SessionQuery>;
      return (await groups.delete(sessionId, id, Date.now())) ? { deleted: id } : notFound(reply, id);
    },
  );
}

/**
 * Groups with stored messages first, newest activity first, named from the group lists where
 * they have them; then the listed groups nothing is stored of, by name.
 */
function mergeGroups(active: GroupActivity[], listed: ListedGroup[]): GroupView[] {
  const bySession = new Map(listed.map((group) => [group.sessionId, group]));
  const views: GroupView[] = active.map((group) => {
    const entry = bySession.get(group.sessionId);
    bySession.delete(group.sessionId);
    return {
      ...group,
      name: entry?.name ?? null,
      memberCount: entry?.memberCount ?? null,
      listed: entry !== undefined,
      botShare: group.messagesLastDay === 0 ? 0 : group.botMessagesLastDay / group.messagesLastDay,
    };
  });
  const quiet = [...bySession.values()].sort((a, b) => a.name.localeCompare(b.name));
  for (const group of quiet) {
    views.push({
      sessionId: group.sessionId,
      platform: group.platform,
      selfId: group.selfId,
      groupId: group.groupId,
      name: group.name,
      memberCount: group.memberCount,
      listed: true,
      messagesLastHour: 0,
      messagesLastDay: 0,
      botMessagesLastDay: 0,
      activeMembersLastDay: 0,
      botShare: 0,
      lastMessageAt: null,
      hourly: Array.from({ length: 24 }, () => ({ messages: 0, bot: 0 })),
    });
  }
  return views;
}

function notFound(reply: FastifyReply, id: number) {
  return reply.code(404).send({ error: "not_found", message: `no expression #${id} in this group` });
}
