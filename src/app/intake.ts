import type { ChatAdapter } from "../adapters/types.ts";
import { ChatService, type CommandHandler } from "../chat/chat-service.ts";
import type { DigestScheduler } from "../chat/digest-scheduler.ts";
import { PlatformIntake } from "../chat/platform-intake.ts";
import type { RealtimeBatcher } from "../chat/realtime-batcher.ts";
import type { Cluster } from "../cluster/cluster.ts";
import type { TsumugiConfig } from "../config/schema.ts";
import type { Logger } from "../log/logger.ts";
import type { MemoryLearner } from "../memory/memory-learner.ts";
import type { Monitor } from "../monitor/monitor.ts";
import type { MessageStore } from "../store/types.ts";
import { runsAccount } from "./adapters.ts";
import { deliveryLedger } from "./cluster-member.ts";
import { triggerSettings } from "./service-settings.ts";

export interface IntakeParts {
  messages: MessageStore;
  batcher: RealtimeBatcher;
  digests: DigestScheduler;
  commands: CommandHandler;
  config: () => TsumugiConfig;
  learner: Pick<MemoryLearner, "noticed">;
  cluster: Cluster | undefined;
  /** This instance's OneBot connections: only their triggers are pending in the cluster. */
  platformAdapters: ReadonlyMap<string, ChatAdapter>;
  /** Every adapter the bot uses: its accounts are the bot's own. */
  adapters: ReadonlyMap<string, ChatAdapter>;
  monitor: Monitor;
  logger: Logger;
}

/**
 * Where messages enter the pipeline: `chat` takes every chat's messages (console and stdio
 * channels straight in), `intake` platform messages — a repeated event is dropped, the bot's
 * other accounts never trigger it, and in a cluster each goes to its session's owner.
 */
export function createIntake(parts: IntakeParts): { chat: ChatService; intake: PlatformIntake } {
  const { messages, config, cluster, monitor, logger } = parts;
  const chat = new ChatService(
    messages,
    parts.batcher,
    parts.digests,
    parts.commands,
    () => triggerSettings(config()),
    () => config().access,
    monitor,
    logger,
    (message, triggered) => {
      parts.learner.noticed(message);
      if (triggered && cluster && parts.platformAdapters.has(message.adapterId)) {
        cluster.triggerAccepted(message);
      }
    },
    () => config().log.messageText,
  );
  const intake = new PlatformIntake({
    deliver: cluster ? (message) => cluster.route(message) : (message) => chat.ingest(message),
    ledger: deliveryLedger(cluster, messages, logger),
    isOwnAccount: (platform, userId) => runsAccount(parts.adapters, platform, userId),
    logger,
  });
  return { chat, intake };
}
