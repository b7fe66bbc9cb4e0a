import { type Static, Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import type { ConsoleApiDeps } from "./deps.ts";

const ReminderParams = Type.Object({ id: Type.Integer({ minimum: 1 }) });
/** Most reminders the console lists: the newest, whatever their status. */
const LISTED = 200;

/** Reminders for the console's page: listed (pending first, then the newest), and cancelled by id. */
export function registerReminderRoutes(app: FastifyInstance, deps: ConsoleApiDeps): void {
  app.get("/api/reminders", async () => {
    const reminders = await deps.reminders.recent(LISTED);
    return {
      reminders: reminders.map((reminder) => ({
        id: reminder.id,
        sessionId: reminder.origin.sessionId,
        userId: reminder.userId,
        userName: reminder.userName,
        text: reminder.text,
        dueAt: reminder.dueAt,
        due: deps.reminders.timeText(reminder.dueAt),
        createdAt: reminder.createdAt,
        status: reminder.status,
        late: reminder.late,
        ...(reminder.firedAt === undefined ? {} : { firedAt: reminder.firedAt }),
      })),
    };
  });

  app.delete("/api/reminders/:id", { schema: { params: ReminderParams } }, async (request, reply) => {
    const { id } = request.params as Static<typeof ReminderParams>;
    if (!(await deps.reminders.cancel(id))) {
      return reply.code(404).send({ error: "not_found", message: `no pending reminder #${id}` });
    }
    return { cancelled: id };
  });
}
