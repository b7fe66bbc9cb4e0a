import { resolve } from "node:path";
import type { Logger } from "../log/logger.ts";
import type { ChatMessage } from "../message/inbound.ts";
import type { RetentionLimits } from "../monitor/event-store.ts";
import { assembleStores } from "./assemble-stores.ts";
import type { MessageRetentionSettings } from "./config.ts";
import { IN_MEMORY, openSqliteDatabase } from "./sqlite/database.ts";
import { SqliteMonitorEventStore } from "./sqlite/event-store.ts";
import { SqliteMemoryStore } from "./sqlite/memory-store.ts";
import { sqliteRetentionSteps } from "./sqlite/message-retention.ts";
import { SqliteMessageStore } from "./sqlite/message-store.ts";
import { SqlitePictureStore } from "./sqlite/picture-store.ts";
import { SqliteSendStore } from "./sqlite/send-store.ts";
import { SqliteStickerStore } from "./sqlite/sticker-store.ts";
import { SqliteTurnStore } from "./sqlite/turn-store.ts";
import { SqliteUsageStore } from "./sqlite/usage-store.ts";
import { WriteTick } from "./sqlite/write-tick.ts";
import type { Stores } from "./types.ts";

const SQLITE_SCHEME = "sqlite:";
const POSTGRES_SCHEMES = ["postgres:", "postgresql:"];
const SCHEMES = `${SQLITE_SCHEME}, ${POSTGRES_SCHEMES.join(", ")}`;

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
export const DEFAULT_OPTIONS: StoreOptions = {
  monitorRetention: () => ({ maxEvents: 10_000, maxAgeHours: 72 }),
  messageRetention: () => ({ days: 0, messagesPerSession: 100_000 }),
  spoolLimit: 50_000,
  isTrigger: () => false,
};

/** `storage.url`'s scheme, lower-cased (`sqlite:`, `postgres:`, …); throws when it has none. */
function schemeOf(url: string): string {
  const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(url)?.[0];
  // The URL may hold a password: name it only when it has no scheme (then it is a path).
  if (scheme === undefined) throw new Error(`storage.url: no scheme in "${url}" (supported: ${SCHEMES})`);
  return scheme.toLowerCase();
}

/** Whether `storage.url` names a PostgreSQL database. */
export function isPostgresUrl(url: string): boolean {
  return POSTGRES_SCHEMES.some((scheme) => url.toLowerCase().startsWith(scheme));
}

/**
 * The database file `storage.url` names (`sqlite:<path>`, relative to the working directory),
 * or IN_MEMORY for `sqlite::memory:`.
 */
export function sqliteFileOf(url: string, cwd = process.cwd()): string {
  const scheme = schemeOf(url);
  if (scheme !== SQLITE_SCHEME)
    throw new Error(`storage.url: unsupported scheme "${scheme}" (supported: ${SCHEMES})`);
  const location = url.slice(SQLITE_SCHEME.length);
  if (location === "") throw new Error(`storage.url: "${url}" names no database file`);
  return location === IN_MEMORY ? IN_MEMORY : resolve(cwd, location);
}

/**
 * Opens the stores named by `storage.url` and starts pruning messages beyond the retention:
 * `sqlite:<path>` (relative paths resolve against the working directory), `sqlite::memory:`,
 * or a PostgreSQL server (`postgres://user:password@host:5432/database`, also `postgresql://`).
 */
export async function openStore(
  url: string,
  logger: Logger,
  options: StoreOptions = DEFAULT_OPTIONS,
): Promise<Stores> {
  if (isPostgresUrl(url)) {
    // Loaded only here: a SQLite bot never loads the PostgreSQL driver (start-up time, memory).
    const { openPostgresStores } = await import("./postgres/open-postgres.ts");
    return openPostgresStores(url, logger, options);
  }
  return openSqliteStores(sqliteFileOf(url), logger, options);
}

/**
 * The SQLite stores answer within the call (the driver is synchronous): their Promises are
 * already settled, so awaiting them costs no extra event-loop turn.
 */
function openSqliteStores(file: string, logger: Logger, options: StoreOptions): Stores {
  const db = openSqliteDatabase(file, logger);
  const tick = new WriteTick(db, logger, { spoolLimit: options.spoolLimit });
  const messages = new SqliteMessageStore(db, logger, tick, {
    expendable: (message) => !options.isTrigger(message),
  });
  const usage = new SqliteUsageStore(db, logger, tick);
  const turns = new SqliteTurnStore(db, logger, tick);
  const sends = new SqliteSendStore(db, logger, tick);
  const monitorEvents = new SqliteMonitorEventStore(db, options.monitorRetention, logger, tick);
  return assembleStores(
    {
      messages,
      turns,
      sends,
      usage,
      monitorEvents,
      pictures: new SqlitePictureStore(db),
      stickers: new SqliteStickerStore(db),
      memories: new SqliteMemoryStore(db),
      status: () => tick.status(),
      retentionSteps: sqliteRetentionSteps(db),
      closeDatabase: () => {
        tick.close();
        db.close();
      },
    },
    logger,
    options,
    { file },
  );
}
