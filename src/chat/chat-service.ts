import type { Logger } from "../log/logger.ts";
import type { ChatMessage } from "../message/inbound.ts";
import { renderSegments } from "../message/render.ts";
import type { Monitor } from "../monitor/monitor.ts";
import type { MessageStore } from "../store/types.ts";
import type { DigestScheduler } from "./digest-scheduler.ts";
import type { RealtimeBatcher } from "./realtime-batcher.ts";
import type { SummaryCommand } from "./summary-command.ts";
import { detectTrigger, type TriggerSettings } from "./triggers.ts";

/** Plugin and host commands, answered without the model (src/plugins/command-dispatcher.ts). */
export interface CommandHandler {
  /** Starts the command the message is, if it is one; returns whether it was. */
  dispatch(message: ChatMessage): boolean;
}

/**
 * The first stage after an adapter: every message is stored (it becomes context); a command
 * is answered without the model; a summary command starts a summary; a message that
 * triggers the bot opens or joins its sender's realtime window; the rest is chatter gathered
 * for the next digest.
 */
export class ChatService {
  constructor(
    private readonly store: MessageStore,
    private readonly batcher: RealtimeBatcher,
    private readonly digests: DigestScheduler,
    private readonly summaries: SummaryCommand,
    private readonly commands: CommandHandler,
    private readonly triggers: () => TriggerSettings,
    private readonly monitor: Monitor,
    private readonly logger: Logger,
  ) {}

  ingest(message: ChatMessage): void {
    this.store.append(message);
    const trigger = detectTrigger(message, this.triggers(), (sessionId, messageId) => {
      return this.store.findByMessageId(sessionId, messageId)?.fromSelf === true;
    });
    if (this.logger.isLevelEnabled("info")) {
      this.logger.info(
        {
          sessionId: message.sessionId,
          messageId: message.messageId,
          sender: message.userId,
          trigger: trigger ?? "none",
          text: clip(renderSegments(message.segments)),
        },
        "message received",
      );
    }
    this.monitor.emit({
      type: "message.ingested",
      sessionId: message.sessionId,
      data: { messageId: message.messageId, userId: message.userId, trigger: trigger ?? null },
    });
    if (this.commands.dispatch(message)) return;
    if (this.summaries.handle(message)) return;
    if (!this.batcher.offer(message, trigger !== undefined)) this.digests.offer(message);
  }
}

function clip(text: string): string {
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}
