import { resolve } from "node:path";
import type { Logger } from "../log/logger.ts";
import { IN_MEMORY, openSqliteDatabase } from "./sqlite/database.ts";
import { SqliteMessageStore } from "./sqlite/message-store.ts";
import { SqliteTurnStore } from "./sqlite/turn-store.ts";
import { SqliteUsageStore } from "./sqlite/usage-store.ts";
import type { Stores } from "./types.ts";

const SQLITE_SCHEME = "sqlite:";

/**
 * Opens the stores named by `storage.url`: `sqlite:<path>` (relative paths resolve against the
 * working directory) or `sqlite::memory:`.
 */
export function openStore(url: string, logger: Logger): Stores {
  const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(url)?.[0];
  if (scheme?.toLowerCase() !== SQLITE_SCHEME) {
    const named = scheme === undefined ? `no scheme in "${url}"` : `unsupported scheme "${scheme}"`;
    throw new Error(`storage.url: ${named} (supported: ${SQLITE_SCHEME})`);
  }
  const location = url.slice(SQLITE_SCHEME.length);
  if (location === "") throw new Error(`storage.url: "${url}" names no database file`);
  const file = location === IN_MEMORY ? IN_MEMORY : resolve(process.cwd(), location);

  const db = openSqliteDatabase(file, logger);
  const messages = new SqliteMessageStore(db, logger);
  const usage = new SqliteUsageStore(db, logger);
  logger.info({ file }, "storage opened");
  return {
    messages,
    turns: new SqliteTurnStore(db),
    usage,
    close() {
      if (!db.open) return;
      for (const store of [messages, usage]) {
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
