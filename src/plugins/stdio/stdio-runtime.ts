import { createPluginAjv } from "../plugin-ajv.ts";
import type { LoadedPlugin, PluginRuntime, RuntimeLoadRequest } from "../runtime.ts";
import { compileProtocol, type ProtocolValidators } from "./protocol.ts";
import { StdioPlugin, type StdioPluginDeps } from "./stdio-plugin.ts";

/**
 * `runtime: "stdio"`: the plugin is a child process in any language speaking the stdio
 * protocol (JSON lines) on stdin/stdout (see docs/stdio-plugins.md). `runtime: "python"` is the
 * same with the Python SDK's runner as the process (deps.launch; docs/python-plugins.md).
 */
export class StdioPluginRuntime implements PluginRuntime {
  /**
   * The protocol's own schemas, compiled at the first load (a bot without stdio plugins never
   * pays the ~100 ms), then kept: a plugin's schemas go to its load's Ajv (request.ajv).
   */
  private protocol: ProtocolValidators | undefined;

  constructor(private readonly deps: StdioPluginDeps) {}

  async load(request: RuntimeLoadRequest): Promise<LoadedPlugin> {
    this.protocol ??= compileProtocol(createPluginAjv());
    const plugin = new StdioPlugin(request, this.deps, this.protocol);
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
