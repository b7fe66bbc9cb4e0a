import { resolve } from "node:path";
import type { Logger } from "../log/logger.ts";
import type { RetentionLimits } from "../monitor/event-store.ts";
import { SqliteMonitorEventStore } from "../monitor/sqlite-event-store.ts";
import { IN_MEMORY, openSqliteDatabase } from "./sqlite/database.ts";
import { SqliteMessageStore } from "./sqlite/message-store.ts";
import { SqliteTurnStore } from "./sqlite/turn-store.ts";
import { SqliteUsageStore } from "./sqlite/usage-store.ts";
import { WriteTick } from "./sqlite/write-tick.ts";
import type { Stores } from "./types.ts";

const SQLITE_SCHEME = "sqlite:";
/** The defaults of monitor.maxEvents and monitor.maxAgeHours. */
const DEFAULT_RETENTION: RetentionLimits = { maxEvents: 10_000, maxAgeHours: 72 };

/**
 * Opens the stores named by `storage.url`: `sqlite:<path>` (relative paths resolve against the
 * working directory) or `sqlite::memory:`. `retention` bounds the monitor events kept; it is
 * read at every write, so a config reload applies at once.
 */
export function openStore(
  url: string,
  logger: Logger,
  retention: () => RetentionLimits = () => DEFAULT_RETENTION,
): Stores {
  const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(url)?.[0];
  if (scheme?.toLowerCase() !== SQLITE_SCHEME) {
    const named = scheme === undefined ? `no scheme in "${url}"` : `unsupported scheme "${scheme}"`;
    throw new Error(`storage.url: ${named} (supported: ${SQLITE_SCHEME})`);
  }
  const location = url.slice(SQLITE_SCHEME.length);
  if (location === "") throw new Error(`storage.url: "${url}" names no database file`);
  const file = location === IN_MEMORY ? IN_MEMORY : resolve(process.cwd(), location);

  const db = openSqliteDatabase(file, logger);
  const tick = new WriteTick(db, logger);
  const messages = new SqliteMessageStore(db, logger, tick);
  const usage = new SqliteUsageStore(db, logger, tick);
  const turns = new SqliteTurnStore(db, logger, tick);
  const monitorEvents = new SqliteMonitorEventStore(db, retention, logger);
  logger.info({ file }, "storage opened");
  return {
    messages,
    history: messages,
    turns,
    usage,
    monitorEvents,
    close() {
      if (!db.open) return;
      tick.run();
      for (const store of [messages, usage, turns, monitorEvents]) {
        try {
          store.close();
        } catch (error) {
          // Shutting down: lose this queue but still flush the others and close the file.
          logger.error({ err: error }, "failed to flush a store while closing");
        }
      }
      db.close();
    },
  };
}
