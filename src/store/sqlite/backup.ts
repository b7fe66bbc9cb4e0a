import { closeSync, existsSync, mkdirSync, openSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";

export interface BackupResult {
  /** Pages copied (the database's size in pages at the end of the copy). */
  pages: number;
}

/**
 * Copies the database at `source` to `target` with SQLite's online backup API, so the bot may
 * keep running: the copy reads a consistent snapshot (WAL contents included) and never holds
 * the write lock. The copy is readable by its owner only, like the database itself, from its
 * first byte on.
 */
export async function backupDatabase(source: string, target: string): Promise<BackupResult> {
  if (!existsSync(source)) throw new Error(`no database at ${source}`);
  mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
  createOwnerOnly(target);
  const db = new Database(source, { readonly: true, fileMustExist: true });
  try {
    const { totalPages } = await db.backup(target);
    return { pages: totalPages };
  } catch (error) {
    rmSync(target, { force: true });
    throw error;
  } finally {
    db.close();
  }
}

/**
 * Creates `target` empty with mode 0600, refusing one that exists. SQLite would create it 0644
 * (less the umask) and it could only be narrowed after the copy; an existing file keeps its
 * mode, and SQLite gives its journal the database file's mode.
 */
function createOwnerOnly(target: string): void {
  let fd: number;
  try {
    fd = openSync(target, "wx", 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") {
      throw new Error(`${target} already exists; choose another file`);
    }
    throw error;
  }
  closeSync(fd);
}
