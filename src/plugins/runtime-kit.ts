/**
 * What plugins/ offers a runtime that lives outside it (the MCP servers' runtime): the runtime
 * contract the plugin host loads through, the declaration of a plugin from the config, and the
 * process isolation and supervision the stdio runtime uses for its own processes.
 */
export { outsideSandbox, type ProcessIsolation } from "./isolation/process-isolation.ts";
export type { PluginManifest } from "./manifest.ts";
export type { DeclaredPlugin, PluginChangeResult } from "./plugin-status.ts";
export type { LoadedPlugin, PluginRuntime, RuntimeLoadRequest } from "./runtime.ts";
export type { PluginStatus, ProcessStatus, RuntimeDetails } from "./status-types.ts";
export { logStderr, pluginEnvironment } from "./stdio/plugin-process.ts";
export { retryDelayMs, STABLE_UPTIME_MS } from "./stdio/supervision.ts";
