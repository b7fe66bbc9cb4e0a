import { relative } from "node:path";
import { watch } from "chokidar";
import type { Disposer } from "../components/types.ts";
import type { Logger } from "../log/logger.ts";
import { pluginFolderOf } from "./plugin-discovery.ts";

/** Edits arriving within this long of each other reload a plugin once. */
const SETTLE_MS = 150;
/**
 * Not code: dependencies, Python caches and virtualenvs, and what a running plugin writes
 * (a `data/` folder, logs, databases). A stdio plugin keeping its state there does not
 * reload itself on every write.
 */
const IGNORED =
  /(^|[/\\])(node_modules|\.git|__pycache__|\.venv|venv|data)([/\\]|$)|\.(pyc|log|db|db-wal|db-shm|db-journal|sqlite)$/;

/**
 * Watches the plugin folders and reports which plugin folder changed (a file edited,
 * added or removed; a plugin folder appearing or disappearing), once per burst of edits.
 */
export function watchPluginFolders(
  dirs: string[],
  changed: (folder: string) => void,
  logger: Logger,
): Disposer {
  if (dirs.length === 0) return () => {};
  const timers = new Map<string, NodeJS.Timeout>();
  // Matched below the watched folders only: a plugins folder inside some "data" folder still reloads.
  const ignored = (path: string) =>
    dirs.some((dir) => {
      const inside = relative(dir, path);
      return !inside.startsWith("..") && IGNORED.test(inside);
    });
  const watcher = watch(dirs, { ignoreInitial: true, ignored, depth: 10 });
  watcher.on("all", (_event, path) => {
    const folder = pluginFolderOf(path, dirs);
    if (!folder) return;
    clearTimeout(timers.get(folder));
    timers.set(
      folder,
      setTimeout(() => {
        timers.delete(folder);
        changed(folder);
      }, SETTLE_MS),
    );
  });
  watcher.on("error", (error) => logger.warn({ err: error }, "watching the plugin folders failed"));
  return () => {
    for (const timer of timers.values()) clearTimeout(timer);
    timers.clear();
    void watcher.close();
  };
}
