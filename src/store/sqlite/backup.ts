import { chmodSync, existsSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";

export interface BackupResult {
  /** Pages copied (the database's size in pages at the end of the copy). */
  pages: number;
}

/**
 * Copies the database at `source` to `target` with SQLite's online backup API, so the bot may
 * keep running: the copy reads a consistent snapshot (WAL contents included) and never holds
 * the write lock. The copy is readable by its owner only, like the database itself.
 */
export async function backupDatabase(source: string, target: string): Promise<BackupResult> {
  if (!existsSync(source)) throw new Error(`no database at ${source}`);
  if (existsSync(target)) throw new Error(`${target} already exists; choose another file`);
  mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
  const db = new Database(source, { readonly: true, fileMustExist: true });
  try {
    const { totalPages } = await db.backup(target);
    chmodSync(target, 0o600);
    return { pages: totalPages };
  } finally {
    db.close();
  }
}
