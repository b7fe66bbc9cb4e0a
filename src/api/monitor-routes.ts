import { type Static, Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import type { ChatMessage } from "../message/inbound.ts";
import type { StoredMonitorEvent } from "../monitor/event-store.ts";
import type { MonitorEventType } from "../monitor/monitor.ts";
import type { ConsoleApiDeps } from "./deps.ts";
import { openEventStream } from "./event-stream.ts";
import type { TurnDetail } from "./types.ts";

const Page = {
  before: Type.Optional(Type.Integer({ minimum: 1 })),
  limit: Type.Integer({ minimum: 1, maximum: 500, default: 50 }),
};
const TurnsQuery = Type.Object({ search: Type.Optional(Type.String({ maxLength: 200 })), ...Page });
const EventsQuery = Type.Object({
  replyId: Type.Optional(Type.String({ maxLength: 200 })),
  /** `type=memory.learned&type=memory.forgotten`: only events of these types. */
  type: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 30 })),
  ...Page,
});
const TurnParams = Type.Object({ replyId: Type.String({ minLength: 1, maxLength: 200 }) });

/**
 * The timeline: turns (searchable by reply id or session), every event of one turn with the
 * messages that triggered it, raw event pages (of some types only, when asked), and a live
 * stream of new events.
 */
export function registerMonitorRoutes(app: FastifyInstance, deps: ConsoleApiDeps): void {
  app.get("/api/monitor/turns", { schema: { querystring: TurnsQuery } }, async (request) => {
    const query = request.query as Static<typeof TurnsQuery>;
    const search = query.search?.trim() || undefined;
    return { turns: await deps.monitorEvents.turns({ search, beforeId: query.before, limit: query.limit }) };
  });

  app.get("/api/monitor/turns/:replyId", { schema: { params: TurnParams } }, async (request, reply) => {
    const { replyId } = request.params as Static<typeof TurnParams>;
    const events = await deps.monitorEvents.turnEvents(replyId);
    if (events.length === 0) {
      return reply.code(404).send({ error: "not_found", message: `no events for reply ${replyId}` });
    }
    const detail: TurnDetail = { replyId, events, messages: await triggeringMessages(events, deps) };
    return detail;
  });

  app.get("/api/monitor/events", { schema: { querystring: EventsQuery } }, async (request) => {
    const query = request.query as Static<typeof EventsQuery>;
    return {
      events: await deps.monitorEvents.list({
        replyId: query.replyId,
        types: query.type as MonitorEventType[] | undefined,
        beforeId: query.before,
        limit: query.limit,
      }),
    };
  });

  app.get("/api/monitor/stream", async (_request, reply) => {
    // In a cluster, the other instances start sending their events here.
    await deps.timeline.watch?.();
    openEventStream(reply, (send) => deps.timeline.follow((event) => send("monitor", event)));
  });
}

/** The stored messages a turn was about, from the ids its `turn.started` event lists. */
async function triggeringMessages(
  events: StoredMonitorEvent[],
  deps: ConsoleApiDeps,
): Promise<ChatMessage[]> {
  const started = events.find((event) => event.type === "turn.started");
  const ids = started?.data.messageIds;
  if (!started?.sessionId || !Array.isArray(ids)) return [];
  const sessionId = started.sessionId;
  const found = await Promise.all(ids.map((id) => deps.messages.findByMessageId(sessionId, String(id))));
  return found.filter((message) => message !== undefined);
}
