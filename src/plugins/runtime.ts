import type { Ajv } from "ajv";
import type { Logger } from "../log/logger.ts";
import type { PluginLogger } from "../sdk/types.ts";
import type { Built } from "./component-builders.ts";
import type { Component } from "./components.ts";
import type { PluginManifest } from "./manifest.ts";

/** What a runtime needs to load one plugin. */
export interface RuntimeLoadRequest {
  manifest: PluginManifest;
  dir: string;
  /** The plugin's current validated config (it changes on hot reload of the bot config). */
  config: () => Record<string, unknown>;
  logger: Logger;
  /** Rescans the plugin folders and reloads every plugin (seed 004's refresh_tools). */
  refreshTools: () => Promise<void>;
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

/**
 * A plugin process as the status shows it (stdio runtime). `starting` and `restarting`: its
 * activation is under way; `errored`: it failed, a restart is due at `nextRetryAt` (none
 * while a call's failure is being reported); `failed`: given up (autoRetry off or maxRetries
 * used up) until the plugin is reloaded or enabled again.
 */
export interface ProcessStatus {
  state: "starting" | "running" | "errored" | "restarting" | "failed" | "stopped";
  pid?: number;
  /** The command line, split as it is started. */
  command: string[];
  /** How often the process was started again after a crash, a timeout or a failed activation. */
  restarts: number;
  /**
   * Failures in a row (crashes, timeouts, failed activations), forgotten once a process has
   * stayed up a minute after its activation.
   */
  failures: number;
  /** When the next activation attempt is due, while one is scheduled. */
  nextRetryAt?: number;
  lastError?: string;
  lastErrorAt?: number;
  startedAt?: number;
}

/** What a runtime adds to a plugin's status. */
export interface RuntimeDetails {
  process?: ProcessStatus;
  /** The plugin's latest `web_ui` declaration, for the console to show. */
  widgets?: unknown[];
  /** The channel the plugin provides (`channel_provider`: its name and settings schema). */
  channel?: { name: string; configSchema?: unknown };
}

/** One loaded version of a plugin, as a runtime hands it to the host. */
export interface LoadedPlugin {
  /** A description the plugin gave in code (seed 004's `pluginDescription`). */
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
