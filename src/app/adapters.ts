import { ConsoleAdapter } from "../adapters/console/console-adapter.ts";
import { OneBotAdapter } from "../adapters/onebot/onebot-adapter.ts";
import { QqOfficialAdapter } from "../adapters/qq-official/qq-official-adapter.ts";
import type { AccountStatus, AdapterEvents, ChatAdapter, TypingStatus } from "../adapters/types.ts";
import type { TsumugiConfig } from "../config/schema.ts";
import type { Logger } from "../log/logger.ts";
import type { ChatMessage } from "../message/inbound.ts";
import type { Monitor } from "../monitor/monitor.ts";
import type { HttpRoutes } from "../server/routes.ts";

export interface AdapterParts {
  config: TsumugiConfig;
  /** The HTTP server, where reverse-ws and http adapters listen. */
  routes: HttpRoutes;
  /** Where platform adapters' messages enter the pipeline (in a cluster: routed to the session's owner). */
  deliver: (message: ChatMessage) => void;
  /** Where this instance's own chats (console playground, stdio channels) enter the pipeline. */
  deliverLocal: (message: ChatMessage) => void;
  /**
   * What the rest of the bot uses in place of a platform adapter (in a cluster: one that
   * reaches accounts connected to other instances); the adapter itself by default.
   */
  wrap?: (adapter: ChatAdapter) => ChatAdapter;
  /** Told when a platform account connects or disconnects, after the monitor. */
  connection?: (adapterId: string, status: AccountStatus) => void;
  /** Told when a platform deletes a message (a recall). */
  deleted: (message: { sessionId: string; messageId: string }) => void;
  /** Told when a member starts or stops typing. */
  typing: (status: TypingStatus) => void;
  /** Told when a member joins a group and when someone asks to (src/manage/). */
  memberJoined: NonNullable<AdapterEvents["memberJoined"]>;
  joinRequest: NonNullable<AdapterEvents["joinRequest"]>;
  botName: () => string;
  /** The stdio channel plugins' adapter, built before the plugins. */
  stdioChannels: ChatAdapter;
  /** Told when a platform account connects or disconnects (`adapter.connection`). */
  monitor: Monitor;
  logger: Logger;
}

/**
 * Fills `adapters` (kept by the caller: the outbox and the plugins look adapters up in it)
 * with one OneBot or QQ official adapter per `adapters[]` entry (wrapped by `parts.wrap`), the console
 * playground and the stdio channels, and `platformAdapters` with the OneBot adapters
 * themselves (this instance's connections, for /healthz); returns the playground, which the
 * console API drives.
 */
export function addAdapters(
  adapters: Map<string, ChatAdapter>,
  platformAdapters: Map<string, ChatAdapter>,
  parts: AdapterParts,
): ConsoleAdapter {
  const { logger } = parts;
  for (const adapterConfig of parts.config.adapters) {
    const options = {
      routes: parts.routes,
      events: {
        message: parts.deliver,
        deleted: parts.deleted,
        typing: parts.typing,
        memberJoined: parts.memberJoined,
        joinRequest: parts.joinRequest,
        connection: (status: AccountStatus) => {
          logger.debug({ adapter: adapterConfig.id, ...status }, "adapter account status");
          parts.monitor.emit({ type: "adapter.connection", data: { adapter: adapterConfig.id, ...status } });
          parts.connection?.(adapterConfig.id, status);
        },
      },
      logger: logger.child({ adapter: adapterConfig.id }),
    };
    const adapter =
      adapterConfig.type === "qq-official"
        ? new QqOfficialAdapter({ ...options, config: adapterConfig })
        : new OneBotAdapter({ ...options, config: adapterConfig });
    platformAdapters.set(adapterConfig.id, adapter);
    adapters.set(adapterConfig.id, parts.wrap ? parts.wrap(adapter) : adapter);
  }
  const playground = new ConsoleAdapter({ deliver: parts.deliverLocal, botName: parts.botName });
  if (adapters.has(playground.id))
    throw new Error(`adapters: the id "${playground.id}" is reserved for the console`);
  adapters.set(playground.id, playground);
  if (adapters.has(parts.stdioChannels.id))
    throw new Error(`adapters: the id "${parts.stdioChannels.id}" is reserved for stdio channel plugins`);
  adapters.set(parts.stdioChannels.id, parts.stdioChannels);
  return playground;
}

/**
 * Whether `userId` is an account the bot runs on `platform`: any adapter's, connected or seen
 * before (in a cluster the adapters also list the accounts connected to other instances).
 */
export function runsAccount(
  adapters: ReadonlyMap<string, ChatAdapter>,
  platform: string,
  userId: string,
): boolean {
  for (const adapter of adapters.values()) {
    if (adapter.platform === platform && adapter.accounts().some((account) => account.selfId === userId)) {
      return true;
    }
  }
  return false;
}
