import { type MessageSource, parseMessageSource } from "../message/message-source.ts";

/**
 * The format of a `bot.admins` entry, `[<source>:]<userId>` (source: message/message-source.ts).
 * An admin is a user of one platform: an id alone never makes a user of another platform (a
 * stdio channel can claim any sender id) an admin.
 *
 * - `10001` or `onebot:10001` — QQ user 10001 on any OneBot adapter;
 * - `onebot.<adapterId>:10001` — that user on the OneBot adapter `<adapterId>` only;
 * - `stdio.<pluginId>:<userId>` — a user of the stdio channel plugin `<pluginId>`, as its
 *   `channel_inbound` names them (`senderId`, else the chat id); everything after the first
 *   colon is the user id. A stdio entry must name the plugin: each channel names its senders
 *   itself, so `stdio:alice` would make every channel's "alice" an admin.
 *
 * An adapter id alone (`qq:10001`) is not accepted: adapter ids are chosen freely and could
 * collide with a platform name. Nor is a source alone (`stdio.webchat`): it names no user.
 */
export interface AdminEntry {
  source: MessageSource;
  userId: string;
}

const ONEBOT_USER = /^[^\s:]+$/;
const STDIO_USER = /^\S(?:.*\S)?$/s;

export const ADMIN_ENTRY_PROBLEM =
  'must be a QQ user id ("10001"), "onebot:10001", "onebot.<adapterId>:10001" or "stdio.<pluginId>:<userId>"';

/** The entry's source and user, or undefined when it is not in one of the forms above. */
export function parseAdminEntry(entry: string): AdminEntry | undefined {
  const colon = entry.indexOf(":");
  if (colon < 0) {
    if (!ONEBOT_USER.test(entry) || parseMessageSource(entry) !== undefined) return undefined;
    return { source: { platform: "onebot" }, userId: entry };
  }
  const source = parseMessageSource(entry.slice(0, colon));
  const userId = entry.slice(colon + 1);
  if (source?.platform === "onebot" && ONEBOT_USER.test(userId)) return { source, userId };
  if (source?.platform === "stdio" && source.instance !== undefined && STDIO_USER.test(userId)) {
    return { source, userId };
  }
  return undefined;
}
