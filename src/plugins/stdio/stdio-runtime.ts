import type { LoadedPlugin, PluginRuntime, RuntimeLoadRequest } from "../runtime.ts";
import { StdioPlugin, type StdioPluginDeps } from "./stdio-plugin.ts";

/**
 * `runtime: "stdio"`: the plugin is a child process in any language speaking seed 002's
 * JSON-lines protocol on stdin/stdout (see docs/stdio-plugins.md).
 */
export class StdioPluginRuntime implements PluginRuntime {
  constructor(private readonly deps: StdioPluginDeps) {}

  async load(request: RuntimeLoadRequest): Promise<LoadedPlugin> {
    const plugin = new StdioPlugin(request, this.deps);
    let activation: Promise<void> | undefined;
    if (request.replacing) await plugin.start();
    else activation = plugin.startInBackground();
    return {
      ...(activation ? { activation } : {}),
      get components() {
        return plugin.components;
      },
      configChanged: (config) => plugin.configChanged(config),
      unload: () => plugin.unload(),
      details: () => plugin.details(),
    };
  }
}
