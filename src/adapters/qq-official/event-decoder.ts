import type { ChatMessage } from "../../message/inbound.ts";
import type { Segment } from "../../message/segment.ts";
import { type ChatType, formatSessionId } from "../../message/session-id.ts";
import { isMessageEvent, type MessageEvent, validationProblem } from "./wire.ts";

export const QQ_OFFICIAL_PLATFORM = "qq-official";

/** The message events mapped to chat messages, and whether each one @-mentions the bot. */
const MESSAGE_EVENTS: Readonly<Record<string, { chatType: ChatType; mentionsBot: boolean }>> = {
  GROUP_AT_MESSAGE_CREATE: { chatType: "group", mentionsBot: true },
  // Every group message, delivered only to bots the platform has granted it.
  GROUP_MESSAGE_CREATE: { chatType: "group", mentionsBot: false },
  C2C_MESSAGE_CREATE: { chatType: "private", mentionsBot: false },
};

export interface DecodeContext {
  adapterId: string;
  /** The bot's AppID, which stands for the bot's own account. */
  appId: string;
  now: () => number;
}

export type DecodedEvent =
  | { kind: "message"; message: ChatMessage }
  | { kind: "skipped"; why: string }
  | { kind: "invalid"; problem: string };

/** Turns an op 0 event (`t`, `d`) into the chat message the OneBot adapters would produce for it. */
export function decodeDispatch(
  eventType: string | undefined,
  data: unknown,
  context: DecodeContext,
): DecodedEvent {
  const kind = eventType === undefined ? undefined : MESSAGE_EVENTS[eventType];
  if (!kind) return { kind: "skipped", why: `event ${eventType ?? "without t"} is not a chat message` };
  if (!isMessageEvent(data))
    return { kind: "invalid", problem: `${eventType}: ${validationProblem(isMessageEvent)}` };
  const userId = kind.chatType === "group" ? data.author.member_openid : data.author.user_openid;
  if (!userId) return { kind: "invalid", problem: `${eventType}: no author openid` };
  const peerId = kind.chatType === "group" ? data.group_openid : userId;
  if (!peerId) return { kind: "invalid", problem: `${eventType}: no group_openid` };
  const { adapterId, appId } = context;
  const message: ChatMessage = {
    platform: QQ_OFFICIAL_PLATFORM,
    adapterId,
    selfId: appId,
    sessionId: formatSessionId({
      platform: QQ_OFFICIAL_PLATFORM,
      selfId: appId,
      chatType: kind.chatType,
      peerId,
    }),
    chatType: kind.chatType,
    userId,
    // The platform shares no names, only openids.
    senderName: userId,
    messageId: data.id,
    segments: segmentsOf(data, kind.mentionsBot ? appId : undefined),
    time: eventTime(data.timestamp) ?? context.now(),
    fromSelf: false,
  };
  if (kind.chatType === "group") message.groupId = peerId;
  return { kind: "message", message };
}

/** The text (the platform strips the @ of the bot and leaves the space after it) and attachments. */
function segmentsOf(data: MessageEvent, mentionedAppId: string | undefined): Segment[] {
  const segments: Segment[] = [];
  if (mentionedAppId) segments.push({ type: "at", data: { qq: mentionedAppId } });
  const text = data.content.trim();
  if (text) segments.push({ type: "text", data: { text } });
  for (const attachment of data.attachments) {
    const url = attachment.url.startsWith("//") ? `https:${attachment.url}` : attachment.url;
    const file = attachment.filename ?? url;
    if (attachment.content_type.startsWith("image/")) segments.push({ type: "image", data: { file, url } });
    else if (attachment.content_type === "voice" || attachment.content_type.startsWith("audio/"))
      segments.push({ type: "record", data: { file, url } });
    else if (attachment.content_type.startsWith("video/"))
      segments.push({ type: "video", data: { file, url } });
    else segments.push({ type: "file", data: { name: attachment.filename ?? "", url } });
  }
  return segments;
}

function eventTime(timestamp: string | undefined): number | undefined {
  if (timestamp === undefined) return undefined;
  const time = Date.parse(timestamp);
  return Number.isNaN(time) ? undefined : time;
}
