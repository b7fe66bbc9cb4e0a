import type { ChatMessage } from "../../message/inbound.ts";
import { idToString } from "../../message/onebot-values.ts";
import { type ChatType, formatSessionId } from "../../message/session-id.ts";
import type { TypingStatus } from "../types.ts";
import type { DecodeContext } from "./event-decoder.ts";

/** What a OneBot notice means to the bot; `other` notices are only logged. */
export type DecodedNotice =
  | { kind: "recall"; sessionId: string; messageId: string }
  | { kind: "poke"; message: ChatMessage }
  | { kind: "offline" }
  | ({ kind: "typing" } & TypingStatus)
  | { kind: "joined"; groupId: string; userId: string }
  | { kind: "other" };

/**
 * Reads the notices the bot acts on, in the shapes NapCat, LLOneBot, Lagrange and go-cqhttp
 * send them: `group_recall` / `friend_recall`, a poke (`notify` with `sub_type` `poke`; in
 * private chats NapCat names the friend in `user_id` and the poker in `sender_id`, go-cqhttp
 * the poker in both), NapCat's `bot_offline`, a member joining (`group_increase`), and NapCat's typing notice (`notify` with
 * `sub_type` `input_status`: QQ reports typing only in private chats, so NapCat sends
 * `group_id` 0 and the typing friend in `user_id`; an empty `status_text` means they stopped).
 */
export function decodeNotice(event: Record<string, unknown>, context: DecodeContext): DecodedNotice {
  const group = idToString(event.group_id);
  const user = idToString(event.user_id);
  const messageId = idToString(event.message_id);
  switch (event.notice_type) {
    case "group_recall":
      return group !== undefined && messageId !== undefined
        ? { kind: "recall", sessionId: sessionOf(context.selfId, "group", group), messageId }
        : { kind: "other" };
    case "friend_recall":
      return user !== undefined && messageId !== undefined
        ? { kind: "recall", sessionId: sessionOf(context.selfId, "private", user), messageId }
        : { kind: "other" };
    case "bot_offline":
      return { kind: "offline" };
    // OneBot v11 event/notice.md: 群成员增加, `sub_type` approve or invite.
    case "group_increase":
      return group !== undefined && user !== undefined
        ? { kind: "joined", groupId: group, userId: user }
        : { kind: "other" };
    case "notify":
      if (event.sub_type === "input_status") return decodeTyping(event, context, group, user);
      return event.sub_type === "poke" ? decodePoke(event, context, group, user) : { kind: "other" };
    default:
      return { kind: "other" };
  }
}

function decodePoke(
  event: Record<string, unknown>,
  context: DecodeContext,
  group: string | undefined,
  user: string | undefined,
): DecodedNotice {
  const poker = idToString(event.sender_id) ?? user;
  const targetId = idToString(event.target_id);
  if (poker === undefined || targetId === undefined || user === undefined) return { kind: "other" };
  const chatType: ChatType = group === undefined ? "private" : "group";
  const time = typeof event.time === "number" ? event.time * 1000 : context.now();
  const { adapterId, selfId } = context;
  const message: ChatMessage = {
    platform: "onebot",
    adapterId,
    selfId,
    sessionId: sessionOf(selfId, chatType, group ?? user),
    chatType,
    userId: poker,
    // Poke notices carry no names; the models are shown the name the poker last went by.
    senderName: poker,
    // Pokes have no platform id: this one names the poke and can never be quoted.
    messageId: `poke-${time}-${poker}`,
    segments: [],
    time,
    fromSelf: poker === selfId,
    notice: { type: "poke", targetId },
  };
  if (group !== undefined) message.groupId = group;
  return { kind: "poke", message };
}

function decodeTyping(
  event: Record<string, unknown>,
  context: DecodeContext,
  group: string | undefined,
  user: string | undefined,
): DecodedNotice {
  if (user === undefined || user === "0") return { kind: "other" };
  const inGroup = group !== undefined && group !== "0";
  const typing = typeof event.status_text === "string" && event.status_text !== "";
  const sessionId = sessionOf(context.selfId, inGroup ? "group" : "private", inGroup ? group : user);
  return { kind: "typing", sessionId, userId: user, typing };
}

function sessionOf(selfId: string, chatType: ChatType, peerId: string): string {
  return formatSessionId({ platform: "onebot", selfId, chatType, peerId });
}
