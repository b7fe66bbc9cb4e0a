import type { Logger } from "../log/logger.ts";
import type { ChatMessage } from "../message/inbound.ts";
import { makeSegment, type Segment } from "../message/segment.ts";
import { clip } from "../util/values.ts";
import type { ReplyExtensionRunner } from "./extension-runner.ts";
import { guardReply } from "./outbound-guard.ts";
import type { Outbox, SessionOrigin } from "./outbox.ts";
import { ReplySender } from "./reply-sender.ts";
import type { ReplyResult } from "./reply-stage.ts";
import { splitText } from "./split-text.ts";
import type { TypingDelaySettings } from "./typing-delay.ts";

export interface OwnMessagesDeps {
  outbox: Outbox;
  extensions: ReplyExtensionRunner;
  /** The session's `chat.textChunkLimit`, `chat.typingDelay` and `chat.mentionAll`, read per message. */
  settings: (sessionId: string) => {
    textChunkLimit: number;
    typingDelay: TypingDelaySettings;
    mentionAll: boolean;
  };
  logger: Logger;
}

/** One message the bot says on its own. */
export interface OwnMessage {
  origin: SessionOrigin;
  /** The words, as the replyer (or the stored text) has them. */
  text: string;
  /** A member mentioned before the words (a reminder's owner, in a group). */
  mention?: string;
  /** Its reply id: the journal's key, so a restart never sends it twice. */
  replyId: string;
  signal: AbortSignal;
}

/**
 * What the bot says on its own in a session — a due reminder, a `schedules:` entry — sent the
 * way a turn's reply is: the outbound guard, the text limit, the `before_send` of each reply
 * extension active in the session that needs no options from a planner (none selects any
 * here), no @全体成员 unless `chat.mentionAll`, and each message journalled under its reply id.
 * The caller runs it in the session's order.
 */
export class OwnMessages {
  constructor(private readonly deps: OwnMessagesDeps) {}

  async say(message: OwnMessage): Promise<ReplyResult> {
    const { origin, replyId, signal } = message;
    const guarded = guardReply(message.text);
    if ("dropped" in guarded) {
      this.deps.logger.info(
        { replyId, sessionId: origin.sessionId, text: clip(message.text, 200) },
        `message not sent: ${guarded.dropped}`,
      );
      return { silent: guarded.dropped };
    }
    const settings = this.deps.settings(origin.sessionId);
    const session = { sessionId: origin.sessionId, chatType: origin.chatType };
    const chain = this.deps.extensions.chain(
      { replyId, callId: replyId, target: standingFor(message), signal },
      this.deps.extensions.withoutOptions(session),
    );
    const group = await chain.beforeSend(guarded.text, splitText(guarded.text, settings.textChunkLimit));
    const mention = message.mention;
    if (mention !== undefined && group[0]) {
      // The mention leads the first message, as a member's reminder expects.
      group[0] = {
        ...group[0],
        segments: [makeSegment("at", { qq: mention }), ...spaced(group[0].segments)],
      };
    }
    const sending = {
      outbox: this.deps.outbox,
      replyId,
      signal,
      sentMessageIds: [],
      typingDelay: settings.typingDelay,
      mentionAll: settings.mentionAll,
    };
    await new ReplySender(sending, origin, undefined).sendAll(group);
    return { sent: true };
  }
}

/** A text leading the message gets a space after the mention. */
function spaced(segments: Segment[]): Segment[] {
  const [first, ...rest] = segments;
  if (first?.type !== "text") return segments;
  return [{ ...first, data: { ...first.data, text: ` ${String(first.data.text)}` } }, ...rest];
}

/**
 * What reply extensions see as the message being answered: nobody's message is, so it is the
 * chat itself with no message id, from the member it is for (or the bot).
 */
function standingFor(message: OwnMessage): ChatMessage {
  const { origin } = message;
  return {
    platform: origin.platform,
    adapterId: origin.adapterId,
    selfId: origin.selfId,
    sessionId: origin.sessionId,
    chatType: origin.chatType,
    ...(origin.groupId === undefined ? {} : { groupId: origin.groupId }),
    userId: message.mention ?? origin.userId,
    senderName: "",
    messageId: "",
    segments: [],
    time: Date.now(),
    fromSelf: false,
  };
}
