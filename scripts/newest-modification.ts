import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

/**
 * The latest modification time (ms) of a file, or of any file or subfolder under a folder
 * (skipping the paths named in `skip`). Walking a few hundred files' metadata takes milliseconds, which
 * is what lets `npm start` check for a stale build every time.
 */
export function newestModification(path: string, skip: string[] = []): number {
  const stats = statSync(path);
  if (!stats.isDirectory()) return stats.mtimeMs;
  let newest = 0;
  for (const entry of readdirSync(path)) {
    const child = join(path, entry);
    if (skip.includes(child)) continue;
    // A subfolder's own time changes when a file in it is deleted; the top folder's is left out
    // because rebuilding a skipped output folder inside it (web/dist) changes it too.
    const childStats = statSync(child);
    if (childStats.isDirectory()) newest = Math.max(newest, childStats.mtimeMs);
    newest = Math.max(newest, newestModification(child, skip));
  }
  return newest;
}
