import { watch } from "chokidar";
import type { Logger } from "../log/logger.ts";
import type { Disposer } from "./components.ts";
import { pluginFolderOf } from "./plugin-discovery.ts";

/** Edits arriving within this long of each other reload a plugin once. */
const SETTLE_MS = 150;
const IGNORED = /(^|[/\\])(node_modules|\.git)([/\\]|$)/;

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
  const watcher = watch(dirs, { ignoreInitial: true, ignored: (path) => IGNORED.test(path), depth: 10 });
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
