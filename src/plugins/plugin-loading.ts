import type { Ajv } from "ajv";
import type { Logger } from "../log/logger.ts";
import type { PluginManifest } from "./manifest.ts";
import { validatePluginConfig } from "./plugin-config.ts";
import type { PluginRecord } from "./plugin-status.ts";
import type { LoadedPlugin, PluginRuntime } from "./runtime.ts";

export interface PluginLoadContext {
  runtimes: Partial<Record<PluginManifest["runtime"], PluginRuntime>>;
  /** A fresh schema compiler (see PluginHostDeps.createAjv). */
  createAjv: () => Ajv;
  logger: Logger;
  /** The config given for a plugin, not yet validated. */
  configOf(id: string): Record<string, unknown> | undefined;
  /** The record's running version declared other components. */
  componentsChanged(record: PluginRecord): void;
  /** The record's status changed (its running version reported one, or its config changed). */
  statusChanged(): void;
}

/**
 * Validates the plugin's config into the record and loads a new version through its runtime,
 * compiling its schemas with `ajv`, this version's own. Throws when either fails; the
 * record's running version (if any) is left as it was.
 */
export async function loadVersion(
  record: PluginRecord,
  manifest: PluginManifest,
  ajv: Ajv,
  context: PluginLoadContext,
): Promise<LoadedPlugin> {
  record.config = validConfig(ajv, context, manifest, record.id);
  // Set once the load returns: a runtime's change reports count only while its version is the active one.
  let current: LoadedPlugin | undefined;
  const isActive = () => current !== undefined && record.active?.loaded === current;
  const loaded = await runtimeFor(context, manifest).load({
    manifest,
    dir: record.dir,
    config: () => record.config ?? {},
    logger: context.logger.child({ plugin: manifest.id }),
    ajv,
    componentsChanged: () => {
      if (isActive()) context.componentsChanged(record);
    },
    statusChanged: () => {
      if (isActive()) context.statusChanged();
    },
    replacing: record.active !== undefined,
  });
  current = loaded;
  return loaded;
}

function validConfig(
  ajv: Ajv,
  context: PluginLoadContext,
  manifest: PluginManifest,
  id: string,
): Record<string, unknown> {
  const result = validatePluginConfig(ajv, manifest.config, context.configOf(id));
  if (!result.ok) throw new Error(`plugins.config.${id} is invalid: ${result.problems.join("; ")}`);
  return result.config;
}

function runtimeFor(context: PluginLoadContext, manifest: PluginManifest): PluginRuntime {
  const runtime = context.runtimes[manifest.runtime];
  if (!runtime) throw new Error(`runtime "${manifest.runtime}" is not available in this version of Tsumugi`);
  return runtime;
}

/** Validates the plugin's current config and hands a changed one to the running version; returns the problem, if any. */
export async function applyConfig(
  record: PluginRecord,
  context: PluginLoadContext,
): Promise<string | undefined> {
  if (!record.manifest) return undefined;
  const result = validatePluginConfig(
    context.createAjv(),
    record.manifest.config,
    context.configOf(record.id),
  );
  if (!result.ok) {
    const problem = `config rejected, the previous config stays: ${result.problems.join("; ")}`;
    record.error = problem;
    record.errorAt = Date.now();
    context.logger.warn({ plugin: record.id }, `plugin ${record.id} ${problem}`);
    context.statusChanged();
    return problem;
  }
  if (JSON.stringify(result.config) === JSON.stringify(record.config)) return undefined;
  record.config = result.config;
  try {
    await record.active?.loaded.configChanged(result.config);
  } catch (error) {
    context.logger.warn({ plugin: record.id, err: error }, "plugin onConfigChanged failed");
  }
  context.logger.info({ plugin: record.id }, "plugin config changed");
  context.statusChanged();
  return undefined;
}
