import type {
  ExpressionProgress,
  GroupActivity,
  GroupExpression,
  GroupStore,
  NewExpression,
} from "../group-types.ts";
import type { MessageStore } from "../types.ts";
import type { SqlDatabase } from "./sql-database.ts";

/** Most of a group's newest messages its activity is counted from: a request costs the same however long the history. */
export const ACTIVITY_SCAN = 20_000;

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

interface GroupRow {
  session_id: string;
  platform: string;
  self_id: string;
  group_id: string;
  last_time: number;
}

interface CountsRow {
  day_count: number;
  hour_count: number | null;
  bot_count: number | null;
  members: number;
}

interface ExpressionRow {
  id: number;
  session_id: string;
  expression: string;
  meaning: string;
  example: string;
  updated_at: number;
}

interface HourRow {
  hours_ago: number | string;
  messages: number | string;
  bot: number | string | null;
}

interface ProgressRow {
  day: string;
  passes: number;
  edited_at: number;
  forgotten_at: number;
}

const EXPRESSION_COLUMNS = "id, session_id, expression, meaning, example, updated_at";

/**
 * Groups' activity, counted from the messages table, and their learned expressions
 * (`group_expressions`, with each group's learning progress in `group_expression_progress`).
 * Written at once, not batched: a pass writes once a day or so, an edit once per click.
 */
export class SqlGroupStore implements GroupStore {
  readonly #sql: SqlDatabase;
  /** The messages' queue: committed before counting, so the counts see every message stored. */
  readonly #messages: Pick<MessageStore, "flush">;

  constructor(sql: SqlDatabase, messages: Pick<MessageStore, "flush">) {
    this.#sql = sql;
    this.#messages = messages;
  }

  async activity(now: number, limit: number): Promise<GroupActivity[]> {
    await this.#messages.flush();
    const groups = await this.#sql.all<GroupRow>(
      `SELECT s.session_id, m.platform, m.self_id, m.group_id, m.time AS last_time
       FROM chat_sessions s JOIN messages m ON m.id = s.last_id
       WHERE m.chat_type = 'group'
       ORDER BY s.last_id DESC LIMIT ?`,
      [limit],
    );
    return Promise.all(
      groups.map(async (group) => {
        const counts = await this.#sql.get<CountsRow>(
          `SELECT COUNT(*) AS day_count,
             SUM(CASE WHEN time >= ? THEN 1 ELSE 0 END) AS hour_count,
             SUM(from_self) AS bot_count,
             COUNT(DISTINCT CASE WHEN from_self = 0 THEN user_id END) AS members
           FROM (SELECT time, user_id, from_self, notice FROM messages
                 WHERE session_id = ? ORDER BY id DESC LIMIT ?) recent
           WHERE time >= ? AND notice IS NULL`,
          [now - HOUR_MS, group.session_id, ACTIVITY_SCAN, now - DAY_MS],
        );
        const hours = await this.#sql.all<HourRow>(
          // CAST: SQLite binds a JS number as a real, which would not divide to whole hours.
          `SELECT CAST((? - time) / ${HOUR_MS} AS INTEGER) AS hours_ago, COUNT(*) AS messages, SUM(from_self) AS bot
           FROM (SELECT time, from_self, notice FROM messages
                 WHERE session_id = ? ORDER BY id DESC LIMIT ?) recent
           WHERE time > ? AND notice IS NULL
           GROUP BY hours_ago`,
          [now, group.session_id, ACTIVITY_SCAN, now - DAY_MS],
        );
        const hourly = Array.from({ length: 24 }, () => ({ messages: 0, bot: 0 }));
        for (const hour of hours) {
          const slot = hourly[23 - Math.floor(Number(hour.hours_ago))];
          if (slot) {
            slot.messages += Number(hour.messages);
            slot.bot += Number(hour.bot ?? 0);
          }
        }
        return {
          sessionId: group.session_id,
          platform: group.platform,
          selfId: group.self_id,
          groupId: group.group_id,
          messagesLastHour: Number(counts?.hour_count ?? 0),
          messagesLastDay: Number(counts?.day_count ?? 0),
          botMessagesLastDay: Number(counts?.bot_count ?? 0),
          activeMembersLastDay: Number(counts?.members ?? 0),
          lastMessageAt: Number(group.last_time),
          hourly,
        };
      }),
    );
  }

  async expressions(sessionId: string): Promise<GroupExpression[]> {
    const rows = await this.#sql.all<ExpressionRow>(
      `SELECT ${EXPRESSION_COLUMNS} FROM group_expressions WHERE session_id = ? ORDER BY id`,
      [sessionId],
    );
    return rows.map(toExpression);
  }

  async progress(sessionId: string): Promise<ExpressionProgress> {
    const row = await this.#sql.get<ProgressRow>(
      "SELECT day, passes, edited_at, forgotten_at FROM group_expression_progress WHERE session_id = ?",
      [sessionId],
    );
    return {
      day: row?.day ?? "",
      passes: Number(row?.passes ?? 0),
      editedAt: Number(row?.edited_at ?? 0),
      forgottenAt: Number(row?.forgotten_at ?? 0),
    };
  }

  async countPass(sessionId: string, day: string): Promise<void> {
    await this.#sql.run(
      `INSERT INTO group_expression_progress (session_id, day, passes) VALUES (?, ?, 1)
       ON CONFLICT (session_id) DO UPDATE SET
         passes = CASE WHEN group_expression_progress.day = excluded.day
                       THEN group_expression_progress.passes + 1 ELSE 1 END,
         day = excluded.day`,
      [sessionId, day],
    );
  }

  /**
   * The old list's deletion and the new list's insertion are two commits: a crash between them
   * leaves the group without expressions until its next pass.
   */
  async replaceLearned(
    sessionId: string,
    entries: NewExpression[],
    editedAt: number,
    at: number,
  ): Promise<boolean> {
    const untouched = await this.#sql.get<{ n: number }>(
      "SELECT COUNT(*) AS n FROM group_expression_progress WHERE session_id = ? AND edited_at > ?",
      [sessionId, editedAt],
    );
    if (Number(untouched?.n ?? 0) > 0) return false;
    await this.#sql.run("DELETE FROM group_expressions WHERE session_id = ?", [sessionId]);
    if (entries.length === 0) return true;
    const values = entries.map(() => "(?, ?, ?, ?, ?)").join(", ");
    await this.#sql.run(
      `INSERT INTO group_expressions (session_id, expression, meaning, example, updated_at) VALUES ${values}`,
      entries.flatMap((entry) => [sessionId, entry.expression, entry.meaning, entry.example, at]),
    );
    return true;
  }

  async edit(
    sessionId: string,
    id: number,
    change: NewExpression,
    at: number,
  ): Promise<GroupExpression | undefined> {
    const changed = await this.#sql.run(
      `UPDATE group_expressions SET expression = ?, meaning = ?, example = ?, updated_at = ?
       WHERE session_id = ? AND id = ?`,
      [change.expression, change.meaning, change.example, at, sessionId, id],
    );
    if (changed === 0) return undefined;
    await this.#edited(sessionId, at);
    const row = await this.#sql.get<ExpressionRow>(
      `SELECT ${EXPRESSION_COLUMNS} FROM group_expressions WHERE id = ?`,
      [id],
    );
    return row && toExpression(row);
  }

  async delete(sessionId: string, id: number, at: number): Promise<boolean> {
    const deleted = await this.#sql.run("DELETE FROM group_expressions WHERE session_id = ? AND id = ?", [
      sessionId,
      id,
    ]);
    if (deleted > 0) await this.#edited(sessionId, at);
    return deleted > 0;
  }

  async forget(sessionId: string, at: number): Promise<number> {
    await this.#sql.run(
      `INSERT INTO group_expression_progress (session_id, edited_at, forgotten_at) VALUES (?, ?, ?)
       ON CONFLICT (session_id) DO UPDATE SET edited_at = excluded.edited_at, forgotten_at = excluded.forgotten_at`,
      [sessionId, at, at],
    );
    return this.#sql.run("DELETE FROM group_expressions WHERE session_id = ?", [sessionId]);
  }

  /** Marks the group's expressions changed by hand: a pass that read them before is discarded. */
  async #edited(sessionId: string, at: number): Promise<void> {
    await this.#sql.run(
      `INSERT INTO group_expression_progress (session_id, edited_at) VALUES (?, ?)
       ON CONFLICT (session_id) DO UPDATE SET edited_at = excluded.edited_at`,
      [sessionId, at],
    );
  }
}

function toExpression(row: ExpressionRow): GroupExpression {
  return {
    id: Number(row.id),
    sessionId: row.session_id,
    expression: row.expression,
    meaning: row.meaning,
    example: row.example,
    updatedAt: Number(row.updated_at),
  };
}
