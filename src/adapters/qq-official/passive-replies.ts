/**
 * Passive replies: a message that answers a user's message (its `msg_id`) within the reply
 * window is free, up to a few answers per message, each with its own `msg_seq`; anything else
 * is an active message, which the platform allows only rarely. So the adapter remembers the
 * chats' recent messages and answers the newest one still open.
 */

/** How long after a message it can be answered passively (botpy's send methods: 5 minutes). */
export const REPLY_WINDOW_MS = 5 * 60_000;
/** Passive answers the platform accepts per message. */
export const MAX_REPLIES_PER_MESSAGE = 5;
/** Chats remembered at once; the least recently active are forgotten first. */
const MAX_CHATS = 2_000;
/** Messages remembered per chat: enough for a reply to quote a recent one. */
const MAX_MESSAGES_PER_CHAT = 20;

interface OpenMessage {
  msgId: string;
  receivedAt: number;
  repliesSent: number;
}

export interface PassiveReply {
  msg_id: string;
  msg_seq: number;
}

export class PassiveReplies {
  readonly #chats = new Map<string, OpenMessage[]>();

  /** A user's message arrived in `chat` (its peer path). */
  remember(chat: string, msgId: string, receivedAt: number): void {
    const messages = this.#chats.get(chat) ?? [];
    this.#chats.delete(chat);
    messages.push({ msgId, receivedAt, repliesSent: 0 });
    this.#chats.set(chat, messages.slice(-MAX_MESSAGES_PER_CHAT));
    if (this.#chats.size > MAX_CHATS) this.#chats.delete(this.#chats.keys().next().value!);
  }

  /**
   * Takes the next passive reply for `chat`: to `quotedMsgId` when it is still open, else to
   * the newest open message; undefined when none is (the send becomes an active message).
   */
  take(chat: string, now: number, quotedMsgId?: string): PassiveReply | undefined {
    const open = (this.#chats.get(chat) ?? []).filter(
      (message) =>
        now - message.receivedAt < REPLY_WINDOW_MS && message.repliesSent < MAX_REPLIES_PER_MESSAGE,
    );
    const chosen = open.find((message) => message.msgId === quotedMsgId) ?? open.at(-1);
    if (!chosen) return undefined;
    chosen.repliesSent += 1;
    return { msg_id: chosen.msgId, msg_seq: chosen.repliesSent };
  }
}
