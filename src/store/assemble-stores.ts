import type { Logger } from "../log/logger.ts";
import type { MonitorEventStore } from "../monitor/event-store.ts";
import type { KnowledgeStore } from "./knowledge-types.ts";
import type { MemoryStore } from "./memory-types.ts";
import { MessageRetention, type RetentionSteps } from "./message-retention.ts";
import { SqlGroupStore } from "./sql/group-store.ts";
import { SqlKnownAccountStore } from "./sql/known-account-store.ts";
import { SqlPictureStore, VOICE_TABLES } from "./sql/picture-store.ts";
import { SqlReminderStore } from "./sql/reminder-store.ts";
import type { SqlDatabase } from "./sql/sql-database.ts";
import { SqlStickerStore } from "./sql/sticker-store.ts";
import type { StoreOptions } from "./store-options.ts";
import type {
  ChatHistory,
  MessageStore,
  SendStore,
  StorageStatus,
  Stores,
  TurnStore,
  UsageStore,
} from "./types.ts";

/** A store that queues its writes: closing it commits what is queued. */
interface Queued {
  close(): Promise<void>;
}

/**
 * The stores one backend opened on its database, before they are put together as `Stores`, and
 * its SQL, which the stores written once for every database (pictures, voice transcripts,
 * reminders, stickers, groups) run on.
 */
export interface BackendStores {
  sql: SqlDatabase;
  messages: MessageStore & ChatHistory & Queued;
  turns: TurnStore & Queued;
  sends: SendStore & Queued;
  usage: UsageStore & Queued;
  monitorEvents: MonitorEventStore & Queued;
  memories: MemoryStore;
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
  const { sql, messages, turns, sends, usage, monitorEvents } = backend;
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
    pictures: new SqlPictureStore(sql),
    voiceTranscripts: new SqlPictureStore(sql, VOICE_TABLES),
    reminders: new SqlReminderStore(sql),
    stickers: new SqlStickerStore(sql),
    knownAccounts: new SqlKnownAccountStore(sql),
    memories: backend.memories,
    groups: new SqlGroupStore(sql, messages),
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
