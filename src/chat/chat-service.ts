import type { Logger } from "../log/logger.ts";
import type { ChatMessage } from "../message/inbound.ts";
import { renderSegments } from "../message/render.ts";
import type { Monitor } from "../monitor/monitor.ts";
import type { MessageStore } from "../store/types.ts";
import { clip } from "../util/values.ts";
import { accessDenial } from "./chat-access.ts";
import type { AccessSettings } from "./config.ts";
import type { DigestScheduler } from "./digest-scheduler.ts";
import type { RealtimeBatcher } from "./realtime-batcher.ts";
import { recordRefusal } from "./refusal.ts";
import { detectTrigger, quotedMessageId, type TriggerReason, type TriggerSettings } from "./triggers.ts";

/** Plugin and host commands, answered without the model (src/plugins/command-dispatcher.ts). */
export interface CommandHandler {
  /** Starts the command the message is, if it is one; returns whether it was. */
  dispatch(message: ChatMessage): boolean;
}

/**
 * The first stage after an adapter: every message is stored (it becomes context); a message
 * from a chat or sender the `access` rules exclude goes no further, even when it is a
 * command (an admin administers from an allowed chat or the console); a command (`/summary`
 * among them) is answered without the planner; a message that triggers the bot
 * opens or joins its sender's realtime window; the rest is chatter gathered for the next digest.
 */
export class ChatService {
  /**
   * Per session, the messages still waiting for the store to say whom the message they reply
   * to was from; the session's later messages queue behind them, so each chat stays in order.
   */
  private readonly waiting = new Map<string, Promise<void>>();

  constructor(
    private readonly store: MessageStore,
    private readonly batcher: RealtimeBatcher,
    private readonly digests: DigestScheduler,
    private readonly commands: CommandHandler,
    private readonly triggers: () => TriggerSettings,
    private readonly access: () => AccessSettings,
    private readonly monitor: Monitor,
    private readonly logger: Logger,
    /**
     * Told of every message that reached the chat stage and is not a command (memory learning;
     * in a cluster, triggers are recorded as pending until their turn starts).
     */
    private readonly noticed: (message: ChatMessage, triggered: boolean) => void = () => {},
    /** `log.messageText`: whether "message received" lines carry the start of the text. */
    private readonly logMessageText: () => boolean = () => false,
  ) {}

  ingest(message: ChatMessage): void {
    this.store.append(message);
    const { sessionId } = message;
    const triggers = this.triggers();
    const quoted = quotedMessageId(message, triggers);
    const before = this.waiting.get(sessionId);
    // Most messages reply to nothing and go on at once, with no store read.
    if (quoted === undefined && before === undefined) {
      this.route(message, detectTrigger(message, triggers, false));
      return;
    }
    const quotesOwn =
      quoted === undefined
        ? false
        : this.store.findByMessageId(sessionId, quoted).then(
            // This account's own message: a reply to another account the bot runs is that one's.
            (found) => found?.fromSelf === true && found.userId === message.selfId,
            (error: unknown) => {
              this.logger.warn(
                { err: error, sessionId, quoted },
                "could not read a quoted message; not a reply to the bot",
              );
              return false;
            },
          );
    const routed = (before ?? Promise.resolve())
      .then(async () => this.route(message, detectTrigger(message, triggers, await quotesOwn)))
      .catch((error: unknown) => {
        this.logger.error(
          { err: error, sessionId, messageId: message.messageId },
          "could not handle a message",
        );
      })
      .finally(() => {
        if (this.waiting.get(sessionId) === routed) this.waiting.delete(sessionId);
      });
    this.waiting.set(sessionId, routed);
  }

  /** Logs the stored message and sends it on: to its command, its realtime window or the digest. */
  private route(message: ChatMessage, trigger: TriggerReason | undefined): void {
    const denial = message.fromSelf ? undefined : accessDenial(message, this.access());
    if (this.logger.isLevelEnabled("info")) {
      this.logger.info(
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
    this.monitor.emit({
      type: "message.ingested",
      sessionId: message.sessionId,
      data: { messageId: message.messageId, userId: message.userId, trigger: trigger ?? null },
    });
    if (denial !== undefined) {
      // Someone addressed the bot: the timeline says why it stays silent. Other chatter is not worth an entry.
      if (trigger !== undefined) this.refuse(message, denial);
      return;
    }
    if (this.commands.dispatch(message)) return;
    this.noticed(message, trigger !== undefined);
    if (!this.batcher.offer(message, trigger !== undefined)) this.digests.offer(message);
  }

  /** What a log line says of a message's content: its shape, and its text only when `log.messageText` is on. */
  private contentFields(message: ChatMessage): Record<string, unknown> {
    const text = renderSegments(message.segments);
    return {
      kinds: [...new Set(message.segments.map((segment) => segment.type))],
      chars: text.length,
      ...(this.logMessageText() ? { text: clip(text, 80) } : {}),
    };
  }

  private refuse(message: ChatMessage, rule: string): void {
    void recordRefusal(
      { monitor: this.monitor, logger: this.logger },
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
