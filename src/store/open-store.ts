import { resolve } from "node:path";
import type { Logger } from "../log/logger.ts";
import type { ChatMessage } from "../message/inbound.ts";
import type { RetentionLimits } from "../monitor/event-store.ts";
import type { MessageRetentionSettings } from "./config.ts";
import { IN_MEMORY, openSqliteDatabase } from "./sqlite/database.ts";
import { SqliteMonitorEventStore } from "./sqlite/event-store.ts";
import { SqliteMemoryStore } from "./sqlite/memory-store.ts";
import { MessageRetention } from "./sqlite/message-retention.ts";
import { SqliteMessageStore } from "./sqlite/message-store.ts";
import { SqlitePictureStore } from "./sqlite/picture-store.ts";
import { SqliteSendStore } from "./sqlite/send-store.ts";
import { SqliteStickerStore } from "./sqlite/sticker-store.ts";
import { SqliteTurnStore } from "./sqlite/turn-store.ts";
import { SqliteUsageStore } from "./sqlite/usage-store.ts";
import { WriteTick } from "./sqlite/write-tick.ts";
import type { Stores } from "./types.ts";

const SQLITE_SCHEME = "sqlite:";

export interface StoreOptions {
  /** Bounds the monitor events kept; read at every write, so a config reload applies at once. */
  monitorRetention: () => RetentionLimits;
  /** `storage.retention`, read at every pruning pass. */
  messageRetention: () => MessageRetentionSettings;
  /** `storage.spoolSize`: rows per table held in memory while the database cannot be written. */
  spoolLimit: number;
  /** Whether a message triggered the bot: such messages are the last dropped when the spool is full. */
  isTrigger: (message: ChatMessage) => boolean;
}

/** The config's defaults (monitor.*, storage.*), for tests and tools. */
const DEFAULT_OPTIONS: StoreOptions = {
  monitorRetention: () => ({ maxEvents: 10_000, maxAgeHours: 72 }),
  messageRetention: () => ({ days: 0, messagesPerSession: 100_000 }),
  spoolLimit: 50_000,
  isTrigger: () => false,
};

/**
 * The database file `storage.url` names (`sqlite:<path>`, relative to the working directory),
 * or IN_MEMORY for `sqlite::memory:`.
 */
export function sqliteFileOf(url: string, cwd = process.cwd()): string {
  const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(url)?.[0];
  if (scheme?.toLowerCase() !== SQLITE_SCHEME) {
    const named = scheme === undefined ? `no scheme in "${url}"` : `unsupported scheme "${scheme}"`;
    throw new Error(`storage.url: ${named} (supported: ${SQLITE_SCHEME})`);
  }
  const location = url.slice(SQLITE_SCHEME.length);
  if (location === "") throw new Error(`storage.url: "${url}" names no database file`);
  return location === IN_MEMORY ? IN_MEMORY : resolve(cwd, location);
}

/**
 * Opens the stores named by `storage.url`: `sqlite:<path>` (relative paths resolve against the
 * working directory) or `sqlite::memory:`, and starts pruning messages beyond the retention.
 * The SQLite stores answer within the call (the driver is synchronous): their Promises are
 * already settled, so awaiting them costs no extra event-loop turn.
 */
export function openStore(url: string, logger: Logger, options: StoreOptions = DEFAULT_OPTIONS): Stores {
  const file = sqliteFileOf(url);
  const db = openSqliteDatabase(file, logger);
  const tick = new WriteTick(db, logger, { spoolLimit: options.spoolLimit });
  const messages = new SqliteMessageStore(db, logger, tick, {
    expendable: (message) => !options.isTrigger(message),
  });
  const usage = new SqliteUsageStore(db, logger, tick);
  const turns = new SqliteTurnStore(db, logger, tick);
  const sends = new SqliteSendStore(db, logger, tick);
  const monitorEvents = new SqliteMonitorEventStore(db, options.monitorRetention, logger, tick);
  const retention = new MessageRetention(
    db,
    options.messageRetention,
    () => tick.status().state === "ok",
    logger,
  );
  retention.start();
  logger.info({ file }, "storage opened");
  const closeAll = async () => {
    retention.stop();
    for (const store of [messages, usage, turns, sends, monitorEvents]) {
      try {
        await store.close();
      } catch (error) {
        // Shutting down: lose this queue but still flush the others and close the file.
        logger.error({ err: error }, "failed to flush a store while closing");
      }
    }
    tick.close();
    db.close();
  };
  let closing: Promise<void> | undefined;
  return {
    messages,
    history: messages,
    turns,
    sends,
    usage,
    monitorEvents,
    pictures: new SqlitePictureStore(db),
    stickers: new SqliteStickerStore(db),
    memories: new SqliteMemoryStore(db),
    status: () => tick.status(),
    close: () => {
      closing ??= closeAll();
      return closing;
    },
  };
}
