import type { Logger } from "../log/logger.ts";
import type { ChatMessage } from "../message/inbound.ts";
import { renderSegments } from "../message/render.ts";
import type { Monitor } from "../monitor/monitor.ts";
import type { MessageStore } from "../store/types.ts";
import type { RealtimeBatcher } from "./realtime-batcher.ts";
import { detectTrigger, type TriggerSettings } from "./triggers.ts";

/**
 * The first stage after an adapter: every message is stored (it becomes context), then a
 * message that triggers the bot opens or joins its sender's realtime window.
 */
export class ChatService {
  constructor(
    private readonly store: MessageStore,
    private readonly batcher: RealtimeBatcher,
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
    this.batcher.offer(message, trigger !== undefined);
  }
}

function clip(text: string): string {
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}
