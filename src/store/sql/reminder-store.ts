import type { NewReminder, Reminder, ReminderStatus, ReminderStore } from "../types.ts";
import type { SqlDatabase } from "./sql-database.ts";

interface ReminderRow {
  id: number | string;
  session_id: string;
  origin: string;
  user_id: string;
  user_name: string;
  text: string;
  due_at: number | string;
  created_at: number | string;
  status: ReminderStatus;
  fired_at: number | string | null;
  late: number;
}

const COLUMNS =
  "id, session_id, origin, user_id, user_name, text, due_at, created_at, status, fired_at, late";

/**
 * Reminders and schedule runs, written straight away (each is one person's request, rare next
 * to messages). Claims are single conditional UPDATEs / INSERTs, so among instances sharing
 * one database exactly one wins each reminder and each schedule time.
 */
export class SqlReminderStore implements ReminderStore {
  readonly #sql: SqlDatabase;

  constructor(sql: SqlDatabase) {
    this.#sql = sql;
  }

  async add(reminder: NewReminder): Promise<Reminder> {
    const row = await this.#sql.get<ReminderRow>(
      `INSERT INTO reminders (session_id, origin, user_id, user_name, text, due_at, created_at, status, late)
       VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', 0) RETURNING ${COLUMNS}`,
      [
        reminder.origin.sessionId,
        JSON.stringify(reminder.origin),
        reminder.userId,
        reminder.userName,
        reminder.text,
        reminder.dueAt,
        reminder.createdAt,
      ],
    );
    return toReminder(row!);
  }

  async pending(filter: { sessionId?: string; userId?: string } = {}): Promise<Reminder[]> {
    const where = ["status = 'pending'"];
    const params: unknown[] = [];
    if (filter.sessionId !== undefined) {
      where.push("session_id = ?");
      params.push(filter.sessionId);
    }
    if (filter.userId !== undefined) {
      where.push("user_id = ?");
      params.push(filter.userId);
    }
    const rows = await this.#sql.all<ReminderRow>(
      `SELECT ${COLUMNS} FROM reminders WHERE ${where.join(" AND ")} ORDER BY due_at, id`,
      params,
    );
    return rows.map(toReminder);
  }

  async recent(limit: number): Promise<Reminder[]> {
    const rows = await this.#sql.all<ReminderRow>(
      `SELECT ${COLUMNS} FROM reminders ORDER BY id DESC LIMIT ?`,
      [limit],
    );
    return rows.map(toReminder);
  }

  async due(now: number, limit: number): Promise<Reminder[]> {
    const rows = await this.#sql.all<ReminderRow>(
      `SELECT ${COLUMNS} FROM reminders WHERE status = 'pending' AND due_at <= ? ORDER BY due_at, id LIMIT ?`,
      [now, limit],
    );
    return rows.map(toReminder);
  }

  async nextDueAt(): Promise<number | undefined> {
    const row = await this.#sql.get<{ due_at: number | string | null }>(
      "SELECT MIN(due_at) AS due_at FROM reminders WHERE status = 'pending'",
    );
    return row?.due_at === null || row?.due_at === undefined ? undefined : Number(row.due_at);
  }

  async settle(id: number, status: "sent" | "expired" | "cancelled", firedAt: number, late: boolean) {
    const changed = await this.#sql.run(
      "UPDATE reminders SET status = ?, fired_at = ?, late = ? WHERE id = ? AND status = 'pending'",
      [status, firedAt, late ? 1 : 0, id],
    );
    return changed === 1;
  }

  async claimScheduleRun(scheduleKey: string, dueAt: number): Promise<boolean> {
    const changed = await this.#sql.run(
      "INSERT INTO schedule_runs (schedule_key, due_at) VALUES (?, ?) ON CONFLICT DO NOTHING",
      [scheduleKey, dueAt],
    );
    return changed === 1;
  }
}

function toReminder(row: ReminderRow): Reminder {
  return {
    id: Number(row.id),
    origin: JSON.parse(row.origin) as Reminder["origin"],
    userId: row.user_id,
    userName: row.user_name,
    text: row.text,
    dueAt: Number(row.due_at),
    createdAt: Number(row.created_at),
    status: row.status,
    ...(row.fired_at === null ? {} : { firedAt: Number(row.fired_at) }),
    late: row.late === 1,
  };
}
