import { parseDocument } from "yaml";
import { readConfigText, saveConsoleEdit } from "../api/config-file.ts";
import { hideKeptSecrets } from "../api/config-secrets.ts";
import type { Cluster } from "../cluster/cluster.ts";
import type { TsumugiConfig } from "../config/schema.ts";
import type { Logger } from "../log/logger.ts";
import type { KeyPath } from "../schema/key-path.ts";
import type { JsonSchema } from "../sdk/types.ts";

/** Keys that name the instance itself: a config saved on another keeps this one's values of them. */
const OWN_KEYS: KeyPath[] = [["cluster", "instanceId"]];

export interface ConfigTarget {
  /** The config file this instance runs from (watched), if any. */
  file: string | undefined;
  env: NodeJS.ProcessEnv;
  /** Where the console finds secrets (the config schema and the plugins' config schemas). */
  secretsSchema: () => JsonSchema;
  /** Applies a config at once (the composition root's applyConfig, as for a file read). */
  apply(next: TsumugiConfig): void;
  logger: Logger;
}

/**
 * Adopts a config another instance's console saved, handed over as an edit in the console's
 * form (ConfigNews): saved over this instance's config file through exactly what a save on
 * its own console goes through (kept secrets restored from this file and never sent to a
 * changed destination, no `${VAR}` reference or alias added, MCP and other start-up checks),
 * keeping this instance's own `cluster.instanceId`, then applied. An edit that does not pass
 * is refused with one line and the config in force stays. Without a config file, its console
 * cannot save either: nothing is adopted.
 */
export function adoptConfigEdit(edit: string, target: ConfigTarget): void {
  const { file, logger } = target;
  if (file === undefined) {
    logger.warn(
      "a config saved on another instance is not adopted: this instance runs without a config file",
    );
    return;
  }
  const saved = saveConsoleEdit(
    file,
    withOwnKeys(edit, readConfigText(file)),
    target.env,
    target.secretsSchema(),
  );
  if (!saved.ok) {
    logger.warn(
      { problems: saved.problems },
      "config saved on another instance refused here (it does not pass the console's checks against this instance's file); keeping the previous config",
    );
    return;
  }
  logger.info({ file }, "config saved on another instance adopted");
  target.apply(saved.config);
}

/**
 * How config changes meet the cluster. `console` is the console's applyConfig: the file it
 * just saved goes to the other instances as the edit of the file before it (hideKeptSecrets),
 * so no secret the edit kept crosses Redis. `file` applies a config read from the file by
 * other means (the watcher, an adopted edit): later saves are compared with that file.
 */
export function shareConfigEdits(
  apply: (next: TsumugiConfig) => void,
  file: string | undefined,
  cluster: Pick<Cluster, "configSaved">,
  secretsSchema: () => JsonSchema,
): { console: (next: TsumugiConfig) => void; file: (next: TsumugiConfig) => void } {
  let before = readConfigText(file);
  return {
    console: (next) => {
      const saved = readConfigText(file);
      if (file !== undefined) cluster.configSaved(hideKeptSecrets(saved, before, secretsSchema()));
      before = saved;
      apply(next);
    },
    file: (next) => {
      before = readConfigText(file);
      apply(next);
    },
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
