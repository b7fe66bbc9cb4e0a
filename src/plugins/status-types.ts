/**
 * A plugin's status as the host reports it (`/plugins`, the console). Type-only, with no
 * runtime imports: the console's front end imports these too.
 */
import type { ComponentKind, LaunchMode } from "../components/types.ts";

export type { LaunchMode } from "../components/types.ts";

import type { JsonSchema } from "../sdk/types.ts";

export type PluginState = "enabled" | "disabled" | "failed";

export interface ComponentStatus {
  kind: ComponentKind;
  name: string;
  fullName: string;
  description: string;
  /** Registered and in use (where its scope applies). */
  enabled: boolean;
  error?: string;
}

export interface PluginStatus extends RuntimeDetails {
  /** The manifest id; the folder name when the manifest could not be read. */
  id: string;
  dir: string;
  name: string;
  version: string;
  description: string;
  runtime: string;
  state: PluginState;
  /** The last error (a failed load, a broken edit, a rejected config), kept until the next success. */
  error?: string;
  errorAt?: number;
  loadedAt?: number;
  components: ComponentStatus[];
  config?: Record<string, unknown>;
  configSchema?: JsonSchema;
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
  /** The command line, split as it is started (inside its sandbox when `launch` is `isolated`). */
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
  /** What the plugin calls itself once running (an MCP server's `initialize` answer), over its manifest's. */
  name?: string;
  version?: string;
  /** How its code runs; a stdio plugin's is known once its process has been started. */
  launch?: LaunchMode;
  process?: ProcessStatus;
  /** The plugin's latest `web_ui` declaration, for the console to show. */
  widgets?: unknown[];
  /** The channel the plugin provides (`channel_provider`: its name and settings schema). */
  channel?: { name: string; configSchema?: unknown };
}
