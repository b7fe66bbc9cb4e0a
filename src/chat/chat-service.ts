import type { Logger } from "../log/logger.ts";
import type { ChatMessage } from "../message/inbound.ts";
import { renderSegments } from "../message/render.ts";
import type { Monitor } from "../monitor/monitor.ts";
import type { MessageStore } from "../store/types.ts";
import { clip } from "../util/values.ts";
import { accessDenial } from "./access-policy.ts";
import type { AccessSettings } from "./config.ts";
import type { DigestScheduler } from "./digest-scheduler.ts";
import type { RealtimeBatcher } from "./realtime-batcher.ts";
import { recordRefusal } from "./refusal.ts";
import type { SummaryCommand } from "./summary-command.ts";
import { detectTrigger, type TriggerSettings } from "./triggers.ts";

/** Plugin and host commands, answered without the model (src/plugins/command-dispatcher.ts). */
export interface CommandHandler {
  /** Starts the command the message is, if it is one; returns whether it was. */
  dispatch(message: ChatMessage): boolean;
}

/**
 * The first stage after an adapter: every message is stored (it becomes context); a message
 * from a chat or sender the `access` rules exclude goes no further, even when it is a
 * command (an admin administers from an allowed chat or the console); a command is answered
 * without the model; a summary command starts a summary; a message that triggers the bot
 * opens or joins its sender's realtime window; the rest is chatter gathered for the next digest.
 */
export class ChatService {
  constructor(
    private readonly store: MessageStore,
    private readonly batcher: RealtimeBatcher,
    private readonly digests: DigestScheduler,
    private readonly summaries: SummaryCommand,
    private readonly commands: CommandHandler,
    private readonly triggers: () => TriggerSettings,
    private readonly access: () => AccessSettings,
    private readonly monitor: Monitor,
    private readonly logger: Logger,
  ) {}

  ingest(message: ChatMessage): void {
    this.store.append(message);
    const trigger = detectTrigger(message, this.triggers(), (sessionId, messageId) => {
      return this.store.findByMessageId(sessionId, messageId)?.fromSelf === true;
    });
    const denial = message.fromSelf ? undefined : accessDenial(message, this.access());
    if (this.logger.isLevelEnabled("info")) {
      this.logger.info(
        {
          sessionId: message.sessionId,
          messageId: message.messageId,
          sender: message.userId,
          trigger: trigger ?? "none",
          ...(denial === undefined ? {} : { denied: denial }),
          text: clip(renderSegments(message.segments), 80),
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
    if (this.summaries.handle(message)) return;
    if (!this.batcher.offer(message, trigger !== undefined)) this.digests.offer(message);
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
