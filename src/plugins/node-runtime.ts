import type { PluginModuleLoader } from "./module-loader.ts";
import { isPluginClass, loadClassPlugin } from "./node-class-plugin.ts";
import { isFunctionPluginEntry, loadFunctionPlugin } from "./node-function-plugin.ts";
import type { LoadedPlugin, PluginRuntime, RuntimeLoadRequest } from "./runtime.ts";

/** `runtime: "node"`: the entry module is imported in-process (TypeScript or JavaScript). */
export class NodePluginRuntime implements PluginRuntime {
  constructor(private readonly modules: PluginModuleLoader) {}

  async load(request: RuntimeLoadRequest): Promise<LoadedPlugin> {
    const scope = await this.modules.load(request.dir, request.manifest.entry);
    if (isPluginClass(scope.entry.default)) return loadClassPlugin(scope, request);
    if (isFunctionPluginEntry(scope.entry)) return loadFunctionPlugin(scope, request);
    throw new Error(
      'the entry must default-export a Plugin subclass (import { Plugin } from "tsumugi/sdk"), or export functionDeclarations and dynamicImports (function_declarations and dynamic_imports)',
    );
  }
}
