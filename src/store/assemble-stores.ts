import type { Logger } from "../log/logger.ts";
import type { MonitorEventStore } from "../monitor/event-store.ts";
import type { GroupStore } from "./group-types.ts";
import type { KnowledgeStore } from "./knowledge-types.ts";
import type { MemoryStore } from "./memory-types.ts";
import { MessageRetention, type RetentionSteps } from "./message-retention.ts";
import type { StoreOptions } from "./store-options.ts";
import type {
  ChatHistory,
  MessageStore,
  PictureDescriptionStore,
  ReminderStore,
  SendStore,
  StickerStore,
  StorageStatus,
  Stores,
  TurnStore,
  UsageStore,
} from "./types.ts";

/** A store that queues its writes: closing it commits what is queued. */
interface Queued {
  close(): Promise<void>;
}

/** The stores one backend opened on its database, before they are put together as `Stores`. */
export interface BackendStores {
  messages: MessageStore & ChatHistory & Queued;
  turns: TurnStore & Queued;
  sends: SendStore & Queued;
  usage: UsageStore & Queued;
  monitorEvents: MonitorEventStore & Queued;
  pictures: PictureDescriptionStore;
  voiceTranscripts: PictureDescriptionStore;
  reminders: ReminderStore;
  stickers: StickerStore;
  memories: MemoryStore;
  groups: GroupStore;
  knowledge: KnowledgeStore;
  /** The write tick's status: whether writes reach the database. */
  status(): StorageStatus;
  /** The deletions `storage.retention` runs on this database. */
  retentionSteps: RetentionSteps;
  /** Closes the write tick and the database; called once every queue is flushed. */
  closeDatabase(): void | Promise<void>;
}

/**
 * Puts a backend's stores together as `Stores`, the same for every database: starts pruning
 * messages beyond the retention and closes in order (retention, queues, database).
 * `location` names the database in the "storage opened" log line.
 */
export function assembleStores(
  backend: BackendStores,
  logger: Logger,
  options: StoreOptions,
  location: Record<string, string>,
): Stores {
  const { messages, turns, sends, usage, monitorEvents } = backend;
  const retention = new MessageRetention(
    backend.retentionSteps,
    options.messageRetention,
    () => backend.status().state === "ok",
    logger,
  );
  retention.start();
  logger.info(location, "storage opened");
  return {
    messages,
    history: messages,
    turns,
    sends,
    usage,
    monitorEvents,
    pictures: backend.pictures,
    voiceTranscripts: backend.voiceTranscripts,
    reminders: backend.reminders,
    stickers: backend.stickers,
    memories: backend.memories,
    groups: backend.groups,
    knowledge: backend.knowledge,
    status: () => backend.status(),
    close: closeStores(logger, async (flush) => {
      await retention.stop();
      await flush([messages, usage, turns, sends, monitorEvents]);
      await backend.closeDatabase();
    }),
  };
}

/** Closes each queue in turn; a queue that fails to flush is logged and the others still close. */
type FlushEach = (queues: readonly Queued[]) => Promise<void>;

/** `Stores.close`: runs `closeAll` once, however often it is called. */
function closeStores(logger: Logger, closeAll: (flush: FlushEach) => Promise<void>): () => Promise<void> {
  const flush: FlushEach = async (queues) => {
    for (const queue of queues) {
      try {
        await queue.close();
      } catch (error) {
        // Shutting down: lose this queue but still flush the others and close the database.
        logger.error({ err: error }, "failed to flush a store while closing");
      }
    }
  };
  let closing: Promise<void> | undefined;
  return () => {
    closing ??= closeAll(flush);
    return closing;
  };
}
