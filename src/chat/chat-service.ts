import type { Logger } from "../log/logger.ts";
import type { ChatMessage } from "../message/inbound.ts";
import { renderSegments } from "../message/render.ts";
import type { Monitor } from "../monitor/monitor.ts";
import type { MessageStore } from "../store/types.ts";
import { clip } from "../util/values.ts";
import type { UnaskedJoin } from "./batch.ts";
import { accessDenial } from "./chat-access.ts";
import type { AccessSettings } from "./config.ts";
import type { DigestScheduler } from "./digest-scheduler.ts";
import type { RealtimeBatcher } from "./realtime-batcher.ts";
import { recordRefusal } from "./refusal.ts";
import type { StageStep } from "./stage-path.ts";
import { detectTrigger, quotedMessageId, type TriggerReason, type TriggerSettings } from "./triggers.ts";

/** Plugin and host commands, answered without the model (src/plugins/command-dispatcher.ts). */
export interface CommandHandler {
  /** Starts the command the message is, if it is one; returns whether it was. */
  dispatch(message: ChatMessage): boolean;
}

/** A message on its way through the message path, with what the stages found out about it. */
export interface Arrival {
  readonly message: ChatMessage;
  /** Why it triggers the bot (the trigger stage); undefined before that stage, or when it does not. */
  readonly trigger?: TriggerReason;
  /** Set by the participation stage when nobody addressed the bot but it joins the conversation. */
  readonly unasked?: UnaskedJoin;
}

export interface ChatServiceDeps {
  store: MessageStore;
  batcher: RealtimeBatcher;
  digests: DigestScheduler;
  commands: CommandHandler;
  /** What triggers the bot in the message's chat. */
  triggers: (message: ChatMessage) => TriggerSettings;
  access: () => AccessSettings;
  monitor: Monitor;
  logger: Logger;
  /** `log.messageText`: whether "message received" lines carry the start of the text. */
  logMessageText: () => boolean;
  /** The bot's sends in a session still waiting for their message id (the outbox's), if any. */
  sendsInFlight: (sessionId: string) => Promise<void> | undefined;
}

/**
 * The chat stages of the message path: every message is stored (it becomes context); whether
 * it triggers the bot is decided; a message from a chat or sender the `access` rules exclude
 * goes no further, even when it is a command (an admin administers from an allowed chat or the
 * console); a command (`/summary` among them) is answered without the planner; a message that
 * triggers the bot opens or joins its sender's realtime window; the rest is chatter gathered
 * for the next digest.
 */
export class ChatService {
  constructor(private readonly deps: ChatServiceDeps) {}

  store(arrival: Arrival): StageStep<Arrival> {
    this.deps.store.append(arrival.message);
    return { go: arrival };
  }

  /** Most messages reply to nothing and go on at once; for a reply, the store says whom it quotes. */
  trigger(arrival: Arrival): StageStep<Arrival> | Promise<StageStep<Arrival>> {
    const { message } = arrival;
    const triggers = this.deps.triggers(message);
    const quoted = quotedMessageId(message, triggers);
    if (quoted === undefined) return { go: { message, trigger: detectTrigger(message, triggers, false) } };
    return this.quotesOwn(message, quoted).then((own) => ({
      go: { message, trigger: detectTrigger(message, triggers, own) },
    }));
  }

  /** Logs the stored message; one the access rules exclude stops here. */
  access(arrival: Arrival): StageStep<Arrival> {
    const { message, trigger } = arrival;
    const denial = message.fromSelf ? undefined : accessDenial(message, this.deps.access());
    const { logger, monitor } = this.deps;
    if (logger.isLevelEnabled("info")) {
      logger.info(
        {
          sessionId: message.sessionId,
          messageId: message.messageId,
          sender: message.userId,
          trigger: trigger ?? "none",
          ...(denial === undefined ? {} : { denied: denial }),
          ...this.contentFields(message),
        },
        "message received",
      );
    }
    monitor.emit({
      type: "message.ingested",
      sessionId: message.sessionId,
      data: { messageId: message.messageId, userId: message.userId, trigger: trigger ?? null },
    });
    if (denial === undefined) return { go: arrival };
    // Someone addressed the bot: the timeline says why it stays silent. Other chatter is not worth an entry.
    if (trigger !== undefined) this.refuse(message, denial);
    return { stop: `access rule ${denial}` };
  }

  /** A command is answered by its handler, without the model. */
  command(arrival: Arrival): StageStep<Arrival> {
    return this.deps.commands.dispatch(arrival.message) ? { stop: "a command" } : { go: arrival };
  }

  /**
   * A trigger, or a message the bot joins unasked, opens or joins its sender's realtime window
   * (as do the sender's next messages); other chatter waits for the digest.
   */
  batch(arrival: Arrival): StageStep<Arrival> {
    const { message, trigger, unasked } = arrival;
    if (!this.deps.batcher.offer(message, trigger !== undefined, unasked)) this.deps.digests.offer(message);
    return { go: arrival };
  }

  /**
   * Whether `quoted` is this account's own message: a reply to another account the bot runs is
   * that one's. A member may quote a message of the bot before the platform's answer to the send
   * (its id) has arrived: when the store has no such message, the session's sends on their way
   * are waited for and the store asked again.
   */
  private async quotesOwn(message: ChatMessage, quoted: string): Promise<boolean> {
    const { sessionId } = message;
    try {
      let found = await this.deps.store.findByMessageId(sessionId, quoted);
      const inFlight = found ? undefined : this.deps.sendsInFlight(sessionId);
      if (inFlight) {
        await inFlight;
        found = await this.deps.store.findByMessageId(sessionId, quoted);
      }
      return found?.fromSelf === true && found.userId === message.selfId;
    } catch (error) {
      this.deps.logger.warn(
        { err: error, sessionId, quoted },
        "could not read a quoted message; not a reply to the bot",
      );
      return false;
    }
  }

  /** What a log line says of a message's content: its shape, and its text only when `log.messageText` is on. */
  private contentFields(message: ChatMessage): Record<string, unknown> {
    const text = renderSegments(message.segments);
    return {
      kinds: [...new Set(message.segments.map((segment) => segment.type))],
      chars: text.length,
      ...(this.deps.logMessageText() ? { text: clip(text, 80) } : {}),
    };
  }

  private refuse(message: ChatMessage, rule: string): void {
    void recordRefusal(
      { monitor: this.deps.monitor, logger: this.deps.logger },
      {
        type: "access.denied",
        batch: {
          kind: "realtime",
          sessionId: message.sessionId,
          messages: [message],
          triggerIds: [message.messageId],
        },
        detail: {
          rule,
          userId: message.userId,
          groupId: message.groupId ?? null,
          chatType: message.chatType,
        },
        reason: `${rule} (user ${message.userId}${message.groupId === undefined ? "" : `, group ${message.groupId}`})`,
      },
    );
  }
}
