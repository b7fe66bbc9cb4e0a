import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from "node:fs";
import { userInfo } from "node:os";
import { dirname } from "node:path";
import BetterSqlite3, { type Database } from "better-sqlite3";
import type { Logger } from "../../log/logger.ts";
import { applyMigrations } from "./migrate.ts";
import { MIGRATIONS, type Migration } from "./migrations.ts";

export const IN_MEMORY = ":memory:";

/** How long opening and migrating wait for another connection's lock before failing. */
const OPEN_BUSY_TIMEOUT_MS = 5000;
/**
 * How long a write waits for another connection's lock once running. The driver is synchronous,
 * so this is time the event loop stands still: writes that meet a lock are spooled and retried
 * later (WriteTick) instead of waiting here.
 */
const WRITE_BUSY_TIMEOUT_MS = 5;
/**
 * SQLite's page cache per connection, in KiB. better-sqlite3 builds SQLite with 16 MB, which a
 * busy bot fills within tens of thousands of messages and never gives back (the bot's memory
 * target). Writes append at the right edge of each index and reads touch the newest pages of a
 * session, so a few MB hold the working set; the OS page cache keeps the rest close.
 */
const PAGE_CACHE_KIB = 4096;

/** Chats, memories and usage are the owner's alone. */
const PRIVATE_FILE_MODE = 0o600;
const PRIVATE_DIR_MODE = 0o700;

/**
 * Opens (creating it and its directory if needed) the SQLite database at `file`, an absolute
 * path or `:memory:`, in WAL mode, and applies pending migrations. The file is readable by its
 * owner only; SQLite gives its -wal and -shm files the database file's mode.
 */
export function openSqliteDatabase(
  file: string,
  logger: Logger,
  migrations: readonly Migration[] = MIGRATIONS,
): Database {
  if (file !== IN_MEMORY) makePrivate(file, logger);
  const db = new BetterSqlite3(file);
  try {
    db.pragma(`busy_timeout = ${OPEN_BUSY_TIMEOUT_MS}`);
    // WAL lets readers run beside the writer; NORMAL sync is durable across app crashes.
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    db.pragma(`cache_size = -${PAGE_CACHE_KIB}`);
    applyMigrations(db, migrations, logger);
    db.pragma(`busy_timeout = ${WRITE_BUSY_TIMEOUT_MS}`);
  } catch (error) {
    db.close();
    throw error;
  }
  logger.debug({ file }, "opened database");
  return db;
}

/**
 * Creates `file` (and missing folders) owner-only, if not there. A folder this user may not
 * write is one line naming both, not an EACCES stack.
 */
export function createPrivateFile(file: string): void {
  try {
    mkdirSync(dirname(file), { recursive: true, mode: PRIVATE_DIR_MODE });
    closeSync(openSync(file, "a", PRIVATE_FILE_MODE));
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code !== "EACCES" && code !== "EPERM" && code !== "EROFS") throw error;
    const user = userInfo().username;
    throw new Error(
      `the data folder ${dirname(file)} is not writable by the user ${user}: give ${user} that folder (chown), or point storage.url at one it may write`,
    );
  }
}

/** Creates `file` (and missing folders) owner-only, and narrows an existing file's mode. */
function makePrivate(file: string, logger: Logger): void {
  createPrivateFile(file);
  for (const path of [file, `${file}-wal`, `${file}-shm`]) {
    if (!existsSync(path)) continue;
    try {
      chmodSync(path, PRIVATE_FILE_MODE);
    } catch (error) {
      // Another user's file that we may still open: run, but say it stays readable.
      logger.warn({ err: error, file: path }, "could not make the database file owner-only");
    }
  }
}
