/**
 * What a replay reads from the operator's store: one chat's stored messages (a window of them)
 * and the picture descriptions cached for their pictures. The SQLite file is opened read-only —
 * the live bot's database, a copy or a backup — so a replay can never change it.
 */
import { existsSync, statSync } from "node:fs";
import Database from "better-sqlite3";
import type { PokeNotice } from "../../src/message/inbound.ts";
import type { Segment } from "../../src/message/segment.ts";

/** A replay input that cannot be used: the command prints the one line and exits 2. */
export class ReplayInputError extends Error {}

/** The most messages one replay plays: a bound, not a figure any chat's window is expected to reach. */
const MAX_MESSAGES = 20_000;

export interface StoredChatMessage {
  messageId: string;
  userId: string;
  senderName: string;
  segments: Segment[];
  /** Unix ms. */
  time: number;
  fromSelf: boolean;
  recalledAt?: number;
  notice?: PokeNotice;
}

export interface StoredChat {
  sessionId: string;
  chatType: "group" | "private";
  /** The group's id, or the other person's in a private chat. */
  peerId: string;
  /** The live bot's account in that chat. */
  selfId: string;
  messages: StoredChatMessage[];
  /** Cached picture descriptions by platform file id, for the pictures among `messages`. */
  pictures: Array<{ fileId: string; sha256: string; kind: string; description: string; model: string }>;
}

interface MessageRow {
  session_id: string;
  chat_type: string;
  group_id: string | null;
  user_id: string;
  self_id: string;
  sender_name: string;
  message_id: string;
  segments: string;
  time: number;
  from_self: number;
  recalled_at: number | null;
  notice: string | null;
}

/**
 * Reads the chat `session` (a session id, or a group id naming exactly one stored chat) from
 * `file`, its messages from `from` to `to` (Unix ms, inclusive) in stored order.
 */
export function readStoredChat(
  file: string,
  session: string,
  window: { from?: number; to?: number },
): StoredChat {
  if (!existsSync(file)) throw new ReplayInputError(`--db ${file}: no such file`);
  if (!statSync(file).isFile()) throw new ReplayInputError(`--db ${file}: not a file`);
  let db: Database.Database;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
    db.pragma("query_only = ON");
    db.prepare("SELECT 1 FROM messages LIMIT 1").all();
  } catch (error) {
    throw new ReplayInputError(
      `--db ${file}: not a Tsumugi database (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  try {
    const sessionId = resolveSession(db, session, file);
    const rows = db
      .prepare(
        `SELECT session_id, chat_type, group_id, user_id, self_id, sender_name, message_id, segments, time,
                from_self, recalled_at, notice
           FROM messages
          WHERE session_id = ? AND time >= ? AND time <= ?
          ORDER BY time, id LIMIT ?`,
      )
      .all(
        sessionId,
        window.from ?? 0,
        window.to ?? Number.MAX_SAFE_INTEGER,
        MAX_MESSAGES + 1,
      ) as MessageRow[];
    if (rows.length > MAX_MESSAGES)
      throw new ReplayInputError(
        `${sessionId}: more than ${MAX_MESSAGES} messages in the window; narrow it with --from/--to`,
      );
    const first = rows[0];
    if (!first) throw new ReplayInputError(`${sessionId}: no stored messages between --from and --to`);
    const messages = rows.map(toMessage);
    return {
      sessionId,
      chatType: first.chat_type === "private" ? "private" : "group",
      peerId: first.group_id ?? peerOfPrivate(rows),
      selfId: first.self_id,
      messages,
      pictures: cachedPictures(db, messages),
    };
  } finally {
    db.close();
  }
}

function resolveSession(db: Database.Database, session: string, file: string): string {
  const exact = db.prepare("SELECT 1 FROM messages WHERE session_id = ? LIMIT 1").get(session);
  if (exact) return session;
  const byGroup = db
    .prepare("SELECT DISTINCT session_id FROM messages WHERE group_id = ? LIMIT 3")
    .all(session) as Array<{ session_id: string }>;
  if (byGroup.length === 1 && byGroup[0]) return byGroup[0].session_id;
  if (byGroup.length > 1)
    throw new ReplayInputError(
      `${session}: several chats of that group are stored (${byGroup.map((row) => row.session_id).join(", ")}); give the session id`,
    );
  throw new ReplayInputError(
    `${session}: no such chat in ${file} (give a session id as the console's Chats page shows it, or a group id)`,
  );
}

/** A private chat's other person: whoever wrote in it who is not the bot. */
function peerOfPrivate(rows: MessageRow[]): string {
  return rows.find((row) => row.from_self === 0)?.user_id ?? rows[0]?.user_id ?? "";
}

function toMessage(row: MessageRow): StoredChatMessage {
  const message: StoredChatMessage = {
    messageId: row.message_id,
    userId: row.user_id,
    senderName: row.sender_name,
    segments: JSON.parse(row.segments) as Segment[],
    time: Number(row.time),
    fromSelf: row.from_self === 1,
  };
  if (row.recalled_at !== null) message.recalledAt = Number(row.recalled_at);
  if (row.notice !== null) message.notice = JSON.parse(row.notice) as PokeNotice;
  return message;
}

/** The cached descriptions of the pictures the replayed messages carry (none in older stores). */
function cachedPictures(db: Database.Database, messages: StoredChatMessage[]): StoredChat["pictures"] {
  const fileIds = [
    ...new Set(
      messages.flatMap((message) =>
        message.segments.flatMap((segment) =>
          segment.type === "image" && typeof segment.data.file === "string" ? [segment.data.file] : [],
        ),
      ),
    ),
  ];
  if (fileIds.length === 0) return [];
  const hasTable = db
    .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'picture_file_ids'")
    .get();
  if (!hasTable) return [];
  const lookup = db.prepare(
    `SELECT f.file_id AS fileId, d.sha256 AS sha256, d.kind AS kind, d.description AS description, d.model AS model
       FROM picture_file_ids f JOIN picture_descriptions d ON d.sha256 = f.sha256 WHERE f.file_id = ?`,
  );
  return fileIds.flatMap((fileId) => {
    const row = lookup.get(fileId) as StoredChat["pictures"][number] | undefined;
    return row ? [row] : [];
  });
}
