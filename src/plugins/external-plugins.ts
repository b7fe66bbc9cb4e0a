import type { Disposer } from "../components/types.ts";
import type { PluginChangeResult } from "./plugin-status.ts";
import type { PluginStatus } from "./status-types.ts";

/**
 * Plugins that do not live in the plugin folders (MCP servers): the plugin host lists them
 * beside its own and hands them the changes addressed to their ids, so `/plugins`, the
 * console's plugin page and `plugins.disabled` reach them the same way.
 */
export interface ExternalPlugins {
  /** Whether `id` (a plugin id, the part of a ref before its first dot) is one of these. */
  owns(id: string): boolean;
  list(): PluginStatus[];
  enable(ref: string): Promise<PluginChangeResult>;
  disable(ref: string): Promise<PluginChangeResult>;
  reload(id: string): Promise<PluginChangeResult>;
  /** Told whenever a status changes. */
  subscribe(listener: () => void): Disposer;
}

/** The plugin id of a ref: "id" or "id.component". */
export function pluginIdOf(ref: string): string {
  const dot = ref.indexOf(".");
  return dot === -1 ? ref : ref.slice(0, dot);
}
