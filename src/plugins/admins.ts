import { CONSOLE_PLATFORM } from "../adapters/console/console-adapter.ts";
import type { ChatMessage } from "../message/inbound.ts";
import { comesFrom } from "../message/message-source.ts";
import { formatSessionId } from "../message/session-id.ts";
import type { SessionOrigin } from "../reply/outbox.ts";
import { parseAdminEntry } from "./admin-entry.ts";

/**
 * Whether the message's sender is one of `bot.admins` (format: admin-entry.ts). The
 * platform decides what an entry can match:
 * - OneBot: `10001`, `onebot:10001`, or `onebot.<adapterId>:10001` for that adapter;
 * - a stdio channel: only `stdio.<pluginId>:<userId>` of that plugin, because the plugin (or a
 *   web page behind it) names the sender itself;
 * - the console playground stands in for QQ: its user ids are checked as OneBot users of any
 *   adapter. Whoever can post there has passed the console's API guard and can change the
 *   config anyway; this lets them try a chat as an admin or as an ordinary member.
 * Other platforms have no admins.
 */
export function isAdmin(
  message: Pick<ChatMessage, "platform" | "adapterId" | "selfId" | "userId">,
  admins: readonly string[],
): boolean {
  return admins.some((entry) => {
    const admin = parseAdminEntry(entry);
    if (admin === undefined || admin.userId !== message.userId) return false;
    if (message.platform === CONSOLE_PLATFORM) return admin.source.platform === "onebot";
    return comesFrom(admin.source, message);
  });
}

/** The private chats, on the account of `origin`, of the admins (`bot.admins`) of its platform. */
export function adminPrivateChats(origin: SessionOrigin, admins: readonly string[]): SessionOrigin[] {
  return admins.flatMap((entry) => {
    const admin = parseAdminEntry(entry);
    if (!admin || !comesFrom(admin.source, origin)) return [];
    const chat = { platform: origin.platform, selfId: origin.selfId, chatType: "private" as const };
    return [
      {
        ...chat,
        adapterId: origin.adapterId,
        userId: admin.userId,
        sessionId: formatSessionId({ ...chat, peerId: admin.userId }),
      },
    ];
  });
}
