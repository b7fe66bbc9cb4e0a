// One bot per SQLite file. Two bots on one file both ran: the first logged `UNIQUE constraint
// failed` and lost timeline events, and reminders could be sent twice. The lock is SQLite's own
// (an fcntl lock the OS drops with the process, so a crash leaves nothing stale to clean): a
// side database `<file>.lock` in whose write transaction the running bot stays. A reader is not
// blocked by that (rollback journal: a RESERVED lock admits readers), so a second bot reads who
// holds it — the pid and port committed just before — and says so.
import { hostname } from "node:os";
import BetterSqlite3, { type Database } from "better-sqlite3";
import { createPrivateFile } from "./database.ts";

/**
 * How long taking the lock waits: long enough for a reader of the holder's row or a commit of
 * another's to pass, far too short to wait for a running bot (which never lets go).
 */
const LOCK_WAIT_MS = 250;

/** A second bot on a database file another process holds; start-up stops with exit 2. */
export class DatabaseInUseError extends Error {
  constructor(
    readonly file: string,
    owner: LockOwner | undefined,
  ) {
    const who = owner
      ? `pid ${owner.pid}${owner.port === undefined ? "" : `, port ${owner.port}`}${owner.host === hostname() ? "" : ` on ${owner.host}`}`
      : "another process";
    super(
      `${file} is in use by another bot (${who}): stop that one, or give this one a storage.url of its own`,
    );
    this.name = "DatabaseInUseError";
  }
}

export interface LockOwner {
  pid: number;
  host: string;
  /** The HTTP port the holder was configured with (its console and OneBot endpoints). */
  port?: number;
}

export interface InstanceLock {
  release(): void;
}

/** The side file a database's lock lives in. */
export function lockFileOf(file: string): string {
  return `${file}.lock`;
}

/** The locks this process holds, by database file, and how many opened stores share each. */
const held = new Map<string, { release(): void; users: number }>();

/**
 * Takes the lock of the database `file` for this process, or throws DatabaseInUseError naming
 * the process that holds it. Held until every `release()` or the end of the process. The lock is
 * the process's: stores opened again in the same process (a restart in place, a second
 * connection in a test) share it.
 */
export function lockDatabase(file: string, owner: Omit<LockOwner, "pid" | "host"> = {}): InstanceLock {
  const lock = held.get(file) ?? { ...takeLock(file, owner), users: 0 };
  held.set(file, lock);
  lock.users++;
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      if (--lock.users > 0) return;
      held.delete(file);
      lock.release();
    },
  };
}

function takeLock(file: string, owner: Omit<LockOwner, "pid" | "host">): InstanceLock {
  createPrivateFile(lockFileOf(file));
  const db = new BetterSqlite3(lockFileOf(file));
  try {
    db.pragma(`busy_timeout = ${LOCK_WAIT_MS}`);
    db.pragma("journal_mode = DELETE");
    db.exec(
      "CREATE TABLE IF NOT EXISTS owner (id INTEGER PRIMARY KEY CHECK (id = 1), pid INTEGER, host TEXT, port INTEGER)",
    );
    const self: LockOwner = { pid: process.pid, host: hostname(), ...owner };
    // Who we are is committed first (readers see only committed rows), then the write
    // transaction is taken again and kept. Whoever fails either step sees the holder's row.
    if (!tryWrite(db, () => writeOwner(db, self)) || !tryBegin(db)) {
      throw new DatabaseInUseError(file, readOwner(db));
    }
    return {
      release() {
        if (db.inTransaction) db.exec("ROLLBACK");
        db.close();
      },
    };
  } catch (error) {
    if (db.open) db.close();
    throw error;
  }
}

function writeOwner(db: Database, owner: LockOwner): void {
  db.prepare("INSERT OR REPLACE INTO owner (id, pid, host, port) VALUES (1, ?, ?, ?)").run(
    owner.pid,
    owner.host,
    owner.port ?? null,
  );
}

function readOwner(db: Database): LockOwner | undefined {
  try {
    const row = db.prepare("SELECT pid, host, port FROM owner WHERE id = 1").get() as
      | { pid: number; host: string; port: number | null }
      | undefined;
    return row && { pid: row.pid, host: row.host, ...(row.port !== null && { port: row.port }) };
  } catch {
    // The holder is mid-commit of its row (a moment's exclusive lock): say no more than "another".
    return undefined;
  }
}

/** Runs `write` in a transaction of its own; false when another connection holds the write lock. */
function tryWrite(db: Database, write: () => void): boolean {
  if (!tryBegin(db)) return false;
  try {
    write();
    db.exec("COMMIT");
    return true;
  } catch (error) {
    if (db.inTransaction) db.exec("ROLLBACK");
    if (isBusy(error)) return false;
    throw error;
  }
}

function tryBegin(db: Database): boolean {
  try {
    db.exec("BEGIN IMMEDIATE");
    return true;
  } catch (error) {
    if (isBusy(error)) return false;
    throw error;
  }
}

function isBusy(error: unknown): boolean {
  const code = (error as { code?: string }).code;
  return code === "SQLITE_BUSY" || code === "SQLITE_LOCKED";
}
