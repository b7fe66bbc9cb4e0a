import { type ChatAdapter, wasNotSent } from "../adapters/types.ts";
import type { Logger } from "../log/logger.ts";
import type { ChatMessage } from "../message/inbound.ts";
import { renderSegments } from "../message/render.ts";
import type { Segment } from "../message/segment.ts";
import { withoutLargeInlinePayloads } from "../message/stored-payloads.ts";
import type { Monitor } from "../monitor/monitor.ts";
import type { MessageStore } from "../store/types.ts";
import { clip } from "../util/values.ts";
import { sendPoke } from "./poke.ts";
import type { SendJournal } from "./send-journal.ts";

/** Where a session's replies go: taken from any message of that session. */
export type SessionOrigin = Pick<
  ChatMessage,
  "platform" | "adapterId" | "selfId" | "sessionId" | "chatType" | "groupId" | "userId"
>;

/** How long a reply waits for its account to reconnect before it fails. */
const RECONNECT_WAIT_MS = 15_000;
const RECONNECT_POLL_MS = 100;
/** Enough of a sent message for the console's turn list (the turn's events keep the segments). */
const SENT_TEXT_MAX = 200;

/**
 * Resolves once the account is connected (true), or with false at the deadline or when
 * aborted.
 */
async function untilConnected(
  adapter: ChatAdapter,
  selfId: string,
  deadline: number,
  signal?: AbortSignal,
): Promise<boolean> {
  const connected = () =>
    adapter.accounts().some((account) => account.selfId === selfId && account.connected);
  while (!connected() && Date.now() < deadline && !signal?.aborted) {
    await new Promise((resolve) => setTimeout(resolve, RECONNECT_POLL_MS));
  }
  return connected();
}

/**
 * Sends the bot's messages through the session's adapter and stores each one once the
 * platform has accepted it, so history shows exactly what was sent. A turn's sends are
 * journalled before and after they leave, so a restart never sends them again.
 */
export class Outbox {
  /** Sends on their way per session, until the platform has answered them. */
  private readonly sending = new Map<string, Set<Promise<unknown>>>();

  constructor(
    private readonly adapterById: (id: string) => ChatAdapter | undefined,
    private readonly journal: SendJournal,
    private readonly store: MessageStore,
    private readonly botName: () => string,
    private readonly monitor: Monitor,
    private readonly logger: Logger,
  ) {}

  /** Waits up to `timeoutMs` for the session's account to be connected; false when it is not. */
  async accountReady(origin: SessionOrigin, timeoutMs: number): Promise<boolean> {
    const adapter = this.adapterById(origin.adapterId);
    return adapter !== undefined && untilConnected(adapter, origin.selfId, Date.now() + timeoutMs);
  }

  /** Pokes `userId` in the origin's chat (poke.ts); resolves with the action that did it. */
  async poke(origin: SessionOrigin, userId: string, replyId?: string): Promise<string> {
    const adapter = this.adapterById(origin.adapterId);
    if (!adapter) throw new Error(`adapter ${origin.adapterId} is not running`);
    const action = await sendPoke(adapter, origin, userId);
    this.logger.info({ sessionId: origin.sessionId, userId, action, replyId }, "poked");
    return action;
  }

  /**
   * Sends one message; resolves with the stored copy (carrying the platform's message id).
   * When the account has no connection at that moment (NapCat restarting, a dropped socket),
   * the message waits up to `RECONNECT_WAIT_MS` for it to come back instead of being lost.
   * A message that may already have left is never sent twice.
   */
  send(
    origin: SessionOrigin,
    segments: Segment[],
    replyId?: string,
    signal?: AbortSignal,
  ): Promise<ChatMessage> {
    const sending = this.deliver(origin, segments, replyId, signal);
    const inSession = this.sending.get(origin.sessionId) ?? new Set<Promise<unknown>>();
    this.sending.set(origin.sessionId, inSession);
    inSession.add(sending);
    const answered = () => {
      inSession.delete(sending);
      if (inSession.size === 0) this.sending.delete(origin.sessionId);
    };
    sending.then(answered, answered);
    return sending;
  }

  /**
   * Resolves once the session's sends on their way have been answered (stored or failed), or
   * undefined when none is: a member can quote a message before its id reaches the bot.
   */
  sendsInFlight(sessionId: string): Promise<void> | undefined {
    const inSession = this.sending.get(sessionId);
    return inSession && Promise.allSettled(inSession).then(() => {});
  }

  private async deliver(
    origin: SessionOrigin,
    segments: Segment[],
    replyId: string | undefined,
    signal: AbortSignal | undefined,
  ): Promise<ChatMessage> {
    const adapter = this.adapterById(origin.adapterId);
    if (!adapter)
      throw Object.assign(new Error(`adapter ${origin.adapterId} is not running`), { notSent: true });
    const peerId = origin.chatType === "group" ? origin.groupId! : origin.userId;
    const target = { selfId: origin.selfId, chatType: origin.chatType, peerId, sessionId: origin.sessionId };
    const journalled =
      replyId === undefined
        ? undefined
        : await this.journal.open(replyId, origin.adapterId, target, segments);
    const deadline = Date.now() + RECONNECT_WAIT_MS;
    let messageId: string;
    let waiting = false;
    for (;;) {
      try {
        ({ messageId } = await adapter.send(target, segments));
        journalled?.sent(messageId);
        break;
      } catch (error) {
        const retry = wasNotSent(error) && Date.now() < deadline && !signal?.aborted;
        if (!retry) {
          journalled?.failed(error);
          throw error;
        }
        if (!waiting)
          this.logger.warn(
            { sessionId: origin.sessionId, selfId: origin.selfId, replyId },
            "no connection to send on; waiting for the account to reconnect",
          );
        waiting = true;
        // Never again at once: an account that counts as connected can still refuse at once (in a
        // cluster, the instance holding it is out of reach while Redis is down); retrying without
        // a pause would spin on promises and starve the event loop that reconnects to Redis.
        await new Promise((resolve) => setTimeout(resolve, RECONNECT_POLL_MS));
        await untilConnected(adapter, origin.selfId, deadline, signal);
      }
    }
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
      data: {
        messageId,
        segments: sent.segments,
        text: clip(renderSegments(segments).trim(), SENT_TEXT_MAX),
      },
    });
    return sent;
  }
}
