import type { Ajv } from "ajv";
import type { Built } from "../components/builders.ts";
import type { Component } from "../components/types.ts";
import type { Logger } from "../log/logger.ts";
import type { PluginLogger } from "../sdk/types.ts";
import type { PluginManifest } from "./manifest.ts";
import type { RuntimeDetails } from "./status-types.ts";

/** What a runtime needs to load one plugin. */
export interface RuntimeLoadRequest {
  manifest: PluginManifest;
  dir: string;
  /** The plugin's current validated config (it changes on hot reload of the bot config). */
  config: () => Record<string, unknown>;
  logger: Logger;
  /** This load's own compiler for the schemas the plugin declares (see createPluginAjv). */
  ajv: Ajv;
  /** The loaded plugin's `components` changed (a stdio process restarted, or declared channel tools). */
  componentsChanged(): void;
  /** What the loaded plugin's `details()` reports changed. */
  statusChanged(): void;
  /**
   * A running version of the plugin stays until this one is ready: the load waits for the
   * activation and fails with it. Otherwise (a first load) a stdio plugin activates in the
   * background, retried under `autoRetry`, and the load returns at once.
   */
  replacing: boolean;
}

/** One loaded version of a plugin, as a runtime hands it to the host. */
export interface LoadedPlugin {
  /** A description the plugin gave in code (a function-declaration plugin's `pluginDescription`). */
  description?: string;
  /** Read again after `componentsChanged`. */
  readonly components: Built<Component>[];
  configChanged(config: Record<string, unknown>): Promise<void>;
  /** Called once no call of this version is running any more. */
  unload(): Promise<void>;
  /** Runtime state shown in the status (a stdio plugin's process, widgets and channel). */
  details?(): RuntimeDetails;
  /** Settles, never rejecting, once a background activation's first attempt is over. */
  activation?: Promise<void>;
}

/** Loads plugins of one `runtime` kind (node in-process, stdio as child processes). */
export interface PluginRuntime {
  load(request: RuntimeLoadRequest): Promise<LoadedPlugin>;
}

/** The SDK's logger interface over the host's logger, each line tagged with the plugin. */
export function pluginLogger(logger: Logger): PluginLogger {
  return {
    debug: (message, fields) => logger.debug(fields ?? {}, message),
    info: (message, fields) => logger.info(fields ?? {}, message),
    warn: (message, fields) => logger.warn(fields ?? {}, message),
    error: (message, fields) => logger.error(fields ?? {}, message),
  };
}

/** Throws when two components of one plugin share a kind and name. */
export function assertUniqueNames(components: Built<Component>[], pluginId: string): void {
  const seen = new Set<string>();
  for (const { component } of components) {
    const key = `${component.kind}:${component.name}`;
    if (seen.has(key))
      throw new Error(`plugin ${pluginId} declares the ${component.kind} "${component.name}" twice`);
    seen.add(key);
  }
}
