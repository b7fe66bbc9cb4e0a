import type { ChatMessage } from "../../message/inbound.ts";
import { messageLimitProblem } from "../../message/message-limits.ts";
import { normalizeSegments } from "../../message/normalize.ts";
import { idToString, nonEmptyString } from "../../message/onebot-values.ts";
import { type ChatType, formatSessionId } from "../../message/session-id.ts";
import { isRecord } from "../../util/values.ts";
import { roleOf } from "./group-actions.ts";

export interface DecodeContext {
  adapterId: string;
  selfId: string;
  /** Used when the event has no `time`. */
  now: () => number;
}

/** `refused`: the event is hostile or broken beyond use (worth a warning), not merely of a kind we skip. */
export type DecodedMessage =
  | { ok: true; message: ChatMessage }
  | { ok: false; problem: string; refused?: true };

/** Turns a OneBot `message` event (group or private) into a ChatMessage. */
export function decodeMessageEvent(event: Record<string, unknown>, context: DecodeContext): DecodedMessage {
  const chatType = chatTypeOf(event.message_type);
  if (!chatType) return { ok: false, problem: `unsupported message_type ${String(event.message_type)}` };
  const userId = idToString(event.user_id);
  const groupId = idToString(event.group_id);
  const messageId = idToString(event.message_id);
  if (!userId || !messageId) return { ok: false, problem: "missing user_id or message_id" };
  if (chatType === "group" && !groupId) return { ok: false, problem: "group message without group_id" };
  // `message` is an array of segments or a CQ string depending on the implementation's setting.
  const rawMessage = event.message ?? event.raw_message;
  const tooLarge = messageLimitProblem(rawMessage);
  if (tooLarge) return { ok: false, problem: `message ${tooLarge}`, refused: true };
  const peerId = chatType === "group" ? groupId! : userId;
  const sender = isRecord(event.sender) ? event.sender : {};
  const { adapterId, selfId } = context;
  const message: ChatMessage = {
    platform: "onebot",
    adapterId,
    selfId,
    sessionId: formatSessionId({ platform: "onebot", selfId, chatType, peerId }),
    chatType,
    userId,
    senderName: nonEmptyString(sender.card) ?? nonEmptyString(sender.nickname) ?? userId,
    messageId,
    segments: normalizeSegments(rawMessage),
    time: typeof event.time === "number" ? event.time * 1000 : context.now(),
    // Some implementations report messages sent from the bot's account as ordinary events.
    fromSelf: userId === selfId,
  };
  if (chatType === "group") {
    message.groupId = groupId;
    const role = roleOf(sender.role);
    if (role !== undefined) message.senderRole = role;
  }
  return { ok: true, message };
}

function chatTypeOf(messageType: unknown): ChatType | undefined {
  return messageType === "group" || messageType === "private" ? messageType : undefined;
}
