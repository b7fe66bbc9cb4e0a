/**
 * Chats of stdio channel plugins: session `stdio:<pluginId>:<chatId or "default">`, where
 * plugin ids hold no colon, so everything after the second colon is the chat id.
 */
import type { ChatMessage } from "../../message/inbound.ts";
import { STDIO_PLATFORM } from "../../message/message-source.ts";
import type { ChannelInbound } from "./protocol.ts";

/** The adapter id of every stdio channel (reserved: no configured adapter may use it). */
export const STDIO_ADAPTER_ID = "stdio";
export const DEFAULT_CHAT_ID = "default";

export function channelSessionPrefix(pluginId: string): string {
  return `${STDIO_PLATFORM}:${pluginId}:`;
}

export function channelSessionId(pluginId: string, chatId: string): string {
  return `${channelSessionPrefix(pluginId)}${chatId}`;
}

export function parseChannelSession(sessionId: string): { pluginId: string; chatId: string } | undefined {
  const match = /^stdio:([^:]+):(.+)$/s.exec(sessionId);
  return match ? { pluginId: match[1]!, chatId: match[2]! } : undefined;
}

/**
 * A `channel_inbound` push as a chat message. Without `chatType` the chat is private (the
 * plugin's user talks to the bot); without `senderId` the sender is the chat itself.
 */
export function inboundMessage(pluginId: string, inbound: ChannelInbound, messageId: string): ChatMessage {
  const chatId = inbound.chatId === undefined ? DEFAULT_CHAT_ID : String(inbound.chatId);
  const chatType = inbound.chatType ?? "private";
  const userId = inbound.senderId === undefined ? chatId : String(inbound.senderId);
  return {
    platform: STDIO_PLATFORM,
    adapterId: STDIO_ADAPTER_ID,
    selfId: pluginId,
    sessionId: channelSessionId(pluginId, chatId),
    chatType,
    ...(chatType === "group" ? { groupId: chatId } : {}),
    userId,
    senderName: inbound.senderName || userId,
    messageId,
    segments: [{ type: "text", data: { text: inbound.message } }],
    time: Date.now(),
    fromSelf: false,
  };
}
