import type { PluginModuleLoader } from "./module-loader.ts";
import { isPluginClass, loadClassPlugin } from "./node-class-plugin.ts";
import { loadFunctionPlugin } from "./node-function-plugin.ts";
import type { LoadedPlugin, PluginRuntime, RuntimeLoadRequest } from "./runtime.ts";

/** `runtime: "node"`: the entry module is imported in-process (TypeScript or JavaScript). */
export class NodePluginRuntime implements PluginRuntime {
  constructor(private readonly modules: PluginModuleLoader) {}

  async load(request: RuntimeLoadRequest): Promise<LoadedPlugin> {
    const scope = await this.modules.load(request.dir, request.manifest.entry);
    try {
      let loaded: LoadedPlugin;
      if (isPluginClass(scope.entry.default)) loaded = await loadClassPlugin(scope, request);
      else if (Array.isArray(scope.entry.functionDeclarations)) loaded = loadFunctionPlugin(scope, request);
      else {
        throw new Error(
          'the entry must default-export a Plugin subclass (import { Plugin } from "tsumugi/sdk"), or export functionDeclarations and dynamicImports',
        );
      }
      return {
        ...loaded,
        unload: async () => {
          try {
            await loaded.unload();
          } finally {
            await scope.release();
          }
        },
      };
    } catch (error) {
      await scope.release();
      throw error;
    }
  }
}
