import { type FSWatcher, watch } from "node:fs";
import { basename, dirname, resolve } from "node:path";
import { isDeepStrictEqual } from "node:util";
import type { Logger } from "../log/logger.ts";
import { ConfigError, loadConfig } from "./load.ts";
import type { TsumugiConfig } from "./schema.ts";

export interface ConfigDiff {
  /** Changed keys, one level below the top (`chat.realtime`, `bot.persona`); `adapters` as a whole. */
  changedKeys: string[];
  /** The subset of `changedKeys` that only takes effect after a restart. */
  restartRequired: string[];
}

/** The listening socket, the database, the cluster and the platform connections are set up once at start. */
function needsRestart(key: string): boolean {
  return (
    key === "adapters" ||
    key.startsWith("server.") ||
    key.startsWith("storage.") ||
    key.startsWith("cluster.")
  );
}

export function diffConfig(previous: TsumugiConfig, next: TsumugiConfig): ConfigDiff {
  const changedKeys: string[] = [];
  for (const section of Object.keys(next) as Array<keyof TsumugiConfig>) {
    const before: unknown = previous[section];
    const after: unknown = next[section];
    if (isDeepStrictEqual(before, after)) continue;
    if (isPlainObject(before) && isPlainObject(after)) {
      for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
        if (!isDeepStrictEqual(before[key], after[key])) changedKeys.push(`${section}.${key}`);
      }
    } else {
      changedKeys.push(section);
    }
  }
  return { changedKeys, restartRequired: changedKeys.filter(needsRestart) };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

export interface WatchConfigOptions {
  /** Source of `${VAR}` expansion on reload. */
  env?: NodeJS.ProcessEnv;
  /** Editors save in several steps (truncate, write, rename); events closer than this are one edit. */
  debounceMs?: number;
}

/**
 * Reloads `file` whenever it changes and passes the new config to `onChange`. An edit that
 * does not load is logged with its problems and passed to `onError`; the caller keeps its
 * previous config. The folder is watched rather than the file so that editors which save by
 * replacing the file (write a temporary file, rename it over) are followed too.
 * Returns a function that stops watching.
 */
export function watchConfigFile(
  file: string,
  onChange: (next: TsumugiConfig) => void,
  onError: (error: Error) => void,
  logger: Logger,
  options: WatchConfigOptions = {},
): () => void {
  const path = resolve(file);
  const folder = dirname(path);
  const name = basename(path);
  const env = options.env ?? process.env;
  const debounceMs = options.debounceMs ?? 150;
  let timer: NodeJS.Timeout | undefined;

  const reload = () => {
    timer = undefined;
    let next: TsumugiConfig;
    try {
      next = loadConfig({ file: path, env, cwd: folder }).config;
    } catch (error) {
      const problems = error instanceof ConfigError ? error.problems : [String(error)];
      logger.warn(
        { file: path, problems },
        `config edit not applied, keeping the previous config: ${problems.join("; ")}`,
      );
      onError(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    logger.info({ file: path }, "config file reloaded");
    onChange(next);
  };

  const watcher: FSWatcher = watch(folder, (_event, changed) => {
    if (changed !== null && changed !== name) return;
    clearTimeout(timer);
    timer = setTimeout(reload, debounceMs);
  });
  watcher.on("error", (error) => {
    logger.error({ file: path, err: error }, "config file watch failed; edits are no longer picked up");
    onError(error);
  });

  return () => {
    clearTimeout(timer);
    watcher.close();
  };
}
