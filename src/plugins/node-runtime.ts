import type { PluginModuleLoader } from "./module-loader.ts";
import { isPluginClass, loadClassPlugin } from "./node-class-plugin.ts";
import { isFunctionPluginEntry, loadFunctionPlugin } from "./node-function-plugin.ts";
import type { LoadedPlugin, PluginRuntime, RuntimeLoadRequest } from "./runtime.ts";

/** `runtime: "node"`: the entry module is imported in-process (TypeScript or JavaScript). */
export class NodePluginRuntime implements PluginRuntime {
  constructor(private readonly modules: PluginModuleLoader) {}

  async load(request: RuntimeLoadRequest): Promise<LoadedPlugin> {
    const scope = await this.modules.load(request.dir, request.manifest.entry);
    // In the bot's own process: it can reach all the bot can, so it shows as such.
    if (isPluginClass(scope.entry.default)) return inProcess(await loadClassPlugin(scope, request));
    if (isFunctionPluginEntry(scope.entry)) return inProcess(await loadFunctionPlugin(scope, request));
    throw new Error(
      'the entry must default-export a Plugin subclass (import { Plugin } from "tsumugi/sdk"), or export functionDeclarations and dynamicImports (function_declarations and dynamic_imports)',
    );
  }
}

function inProcess(loaded: LoadedPlugin): LoadedPlugin {
  const own = loaded.details?.bind(loaded);
  // Assigned, not spread: `components` is a getter.
  return Object.assign(loaded, { details: () => ({ ...own?.(), launch: "in-process" as const }) });
}
