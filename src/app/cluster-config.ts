import { randomUUID } from "node:crypto";
import { readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseDocument } from "yaml";
import { readConfigText } from "../api/config-file.ts";
import type { Cluster } from "../cluster/cluster.ts";
import { ConfigError, loadConfig } from "../config/load.ts";
import type { TsumugiConfig } from "../config/schema.ts";
import type { Logger } from "../log/logger.ts";
import type { KeyPath } from "../schema/key-path.ts";

/** Keys that name the instance itself: a config saved on another keeps this one's values of them. */
const OWN_KEYS: KeyPath[] = [["cluster", "instanceId"]];

export interface ConfigTarget {
  /** The config file this instance runs from (watched), if any. */
  file: string | undefined;
  env: NodeJS.ProcessEnv;
  /** Applies a config at once (the composition root's applyConfig). */
  apply(next: TsumugiConfig): void;
  logger: Logger;
}

/**
 * Adopts a config text another instance's console saved. With a config file, the text
 * replaces it (atomically; its watcher applies it like any edit, logging the keys that need a
 * restart, or keeps the previous config if it does not load here), keeping this instance's
 * own `cluster.instanceId`. Without one, the text is checked as start-up would and applied.
 */
export function adoptConfigText(text: string, target: ConfigTarget): void {
  const { file, logger } = target;
  if (file !== undefined) {
    const current = readConfigText(file);
    const adopted = withOwnKeys(text, current);
    // The same text already (instances sharing one file): nothing to do.
    if (text === current || adopted === current) return;
    replaceFile(file, adopted);
    logger.info({ file }, "config file replaced by the one saved on another instance");
    return;
  }
  const draft = join(tmpdir(), `tsumugi-config-${randomUUID()}.yaml`);
  writeFileSync(draft, text, { mode: 0o600 });
  try {
    target.apply(loadConfig({ file: draft, env: target.env, cwd: process.cwd() }).config);
  } catch (error) {
    const problems = error instanceof ConfigError ? error.problems : [String(error)];
    logger.warn(
      { problems: problems.map((problem) => problem.replaceAll(draft, "(config from another instance)")) },
      "config saved on another instance not applied here, keeping the previous config",
    );
  } finally {
    rmSync(draft, { force: true });
  }
}

/**
 * The console's applyConfig in a cluster: the console saved `file` and applies it here; the
 * saved text then goes to the other instances too.
 */
export function sharingSavedConfig(
  apply: (next: TsumugiConfig) => void,
  file: string | undefined,
  cluster: Pick<Cluster, "configSaved">,
): (next: TsumugiConfig) => void {
  return (next) => {
    apply(next);
    if (file !== undefined) cluster.configSaved(readFileSync(file, "utf8"));
  };
}

/** `text` with the values `current` has (as written there, `${VAR}` references included) of OWN_KEYS. */
function withOwnKeys(text: string, current: string): string {
  const adopted = parseDocument(text);
  const own = parseDocument(current);
  for (const path of OWN_KEYS) {
    const node = own.getIn(path, true);
    if (node === undefined) {
      if (adopted.hasIn(path)) adopted.deleteIn(path);
    } else adopted.setIn(path, node);
  }
  return adopted.toString();
}

/** Writes a temporary file beside `file` and renames it over, so a reader never sees half of it. */
function replaceFile(file: string, text: string): void {
  const draft = `${file}.${randomUUID()}.tmp`;
  writeFileSync(draft, text, { mode: 0o600 });
  renameSync(draft, file);
}
