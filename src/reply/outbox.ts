import type { ChatAdapter } from "../adapters/types.ts";
import type { Logger } from "../log/logger.ts";
import type { ChatMessage } from "../message/inbound.ts";
import type { Segment } from "../message/segment.ts";
import { withoutLargeInlinePayloads } from "../message/stored-payloads.ts";
import type { Monitor } from "../monitor/monitor.ts";
import type { MessageStore } from "../store/types.ts";

/** Where a session's replies go: taken from any message of that session. */
export type SessionOrigin = Pick<
  ChatMessage,
  "platform" | "adapterId" | "selfId" | "sessionId" | "chatType" | "groupId" | "userId"
>;

/**
 * Sends the bot's messages through the session's adapter and stores each one once the
 * platform has accepted it, so history shows exactly what was sent.
 */
export class Outbox {
  constructor(
    private readonly adapterById: (id: string) => ChatAdapter | undefined,
    private readonly store: MessageStore,
    private readonly botName: () => string,
    private readonly monitor: Monitor,
    private readonly logger: Logger,
  ) {}

  /** Sends one message; resolves with the stored copy (carrying the platform's message id). */
  async send(origin: SessionOrigin, segments: Segment[], replyId?: string): Promise<ChatMessage> {
    const adapter = this.adapterById(origin.adapterId);
    if (!adapter) throw new Error(`adapter ${origin.adapterId} is not running`);
    const peerId = origin.chatType === "group" ? origin.groupId! : origin.userId;
    const { messageId } = await adapter.send(
      { selfId: origin.selfId, chatType: origin.chatType, peerId, sessionId: origin.sessionId },
      segments,
    );
    const sent: ChatMessage = {
      platform: origin.platform,
      adapterId: origin.adapterId,
      selfId: origin.selfId,
      sessionId: origin.sessionId,
      chatType: origin.chatType,
      groupId: origin.groupId,
      userId: origin.selfId,
      senderName: this.botName(),
      messageId,
      segments: withoutLargeInlinePayloads(segments),
      time: Date.now(),
      fromSelf: true,
    };
    this.store.append(sent);
    this.logger.info({ sessionId: origin.sessionId, messageId, replyId }, "message sent");
    this.monitor.emit({
      type: "message.sent",
      replyId,
      sessionId: origin.sessionId,
      data: { messageId, segments: sent.segments },
    });
    return sent;
  }
}
