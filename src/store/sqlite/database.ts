import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import BetterSqlite3, { type Database } from "better-sqlite3";
import type { Logger } from "../../log/logger.ts";
import { applyMigrations } from "./migrate.ts";
import { MIGRATIONS, type Migration } from "./migrations.ts";

export const IN_MEMORY = ":memory:";

/** How long a statement waits for another connection's lock before failing. */
const BUSY_TIMEOUT_MS = 5000;

/**
 * Opens (creating it and its directory if needed) the SQLite database at `file`, an absolute
 * path or `:memory:`, in WAL mode, and applies pending migrations.
 */
export function openSqliteDatabase(
  file: string,
  logger: Logger,
  migrations: readonly Migration[] = MIGRATIONS,
): Database {
  if (file !== IN_MEMORY) mkdirSync(dirname(file), { recursive: true });
  const db = new BetterSqlite3(file);
  try {
    // WAL lets readers run beside the writer; NORMAL sync is durable across app crashes.
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    applyMigrations(db, migrations, logger);
  } catch (error) {
    db.close();
    throw error;
  }
  logger.debug({ file }, "opened database");
  return db;
}
