import type { ChatMessage } from "../../src/message/inbound.ts";
/** The ids and message segments end-to-end tests talk to the bot with. */

/** The bot's own QQ account (the stand-in's default `selfId`). */
export const SELF = "10000";
export const GROUP = "20000";
export const OTHER_GROUP = "20001";
export const ALICE = "30001";
export const BOB = "30002";

/** The session id the bot gives `group` on the default adapter. */
export const groupSession = (group = GROUP, self = SELF) => `onebot:${self}:group:${group}`;

/** A text-only message. */
export const plain = (text: string) => [{ type: "text", data: { text } }];

/** A message that @-mentions the bot, then ` text`. */
export const mention = (text: string, self = SELF) => [
  { type: "at", data: { qq: self } },
  { type: "text", data: { text: ` ${text}` } },
];

/** A group message event in GROUP from `userId`, dated `ageMs` ago, as NapCat's JSON text. */
export function groupMessageEvent(messageId: number, userId: string, message: unknown[], ageMs = 0): string {
  return JSON.stringify({
    time: Math.floor((Date.now() - ageMs) / 1000),
    self_id: Number(SELF),
    post_type: "message",
    message_type: "group",
    sub_type: "normal",
    message_id: messageId,
    group_id: Number(GROUP),
    user_id: Number(userId),
    message,
    raw_message: "",
    font: 0,
    sender: { user_id: Number(userId), nickname: `user${userId}`, card: "", role: "owner" },
  });
}

let nextMessageId = 1;

/**
 * A group chat message as an adapter delivers it (for tests below the adapter): Alice in
 * GROUP unless `fields` say otherwise; `groupId` also sets the session, `text` the segments.
 * Each call gets a new message id.
 */
export function groupChatMessage(fields: Partial<ChatMessage> & { text?: string } = {}): ChatMessage {
  const { text = "hello", ...overrides } = fields;
  const groupId = overrides.groupId ?? GROUP;
  const userId = overrides.userId ?? ALICE;
  return {
    platform: "onebot",
    adapterId: "qq",
    selfId: SELF,
    sessionId: groupSession(groupId),
    chatType: "group",
    groupId,
    userId,
    senderName: `user${userId}`,
    messageId: String(nextMessageId++),
    segments: [{ type: "text", data: { text } }],
    time: 0,
    fromSelf: false,
    ...overrides,
  };
}
