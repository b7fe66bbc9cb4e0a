import module from "node:module";
import { join, resolve as resolvePath } from "node:path";
import { pathToFileURL } from "node:url";
import { register } from "tsx/esm/api";

/** In the URLs of plugin code; the resolve hook recognises plugin imports by it. */
const PLUGIN_MARKER = "tsumugi-plugin";

/**
 * Module resolution hooks are process-wide in Node, so the SDK resolve hook is registered
 * once per process, by whichever loader is created first.
 */
let hookRegistered = false;

function registerSdkResolveHook(): void {
  if (hookRegistered) return;
  module.register(new URL("./sdk-resolve-hook.mjs", import.meta.url), {
    data: { sdkUrl: new URL("../sdk/index.ts", import.meta.url).href },
  });
  hookRegistered = true;
}

/** One loaded version of a plugin's code: its own module graph, so a reload sees edited files. */
export interface PluginModuleScope {
  /** The entry module's exports. */
  entry: Record<string, unknown>;
  /** Imports a module of the plugin (relative to its folder) within this version. */
  importFromPlugin(specifier: string): Promise<Record<string, unknown>>;
  /** Stops resolving through this version; modules already imported stay usable. */
  release(): Promise<void>;
}

let versionCounter = 0;

/**
 * Imports plugin code through tsx (TypeScript with standard decorators, from any folder),
 * each load in a fresh tsx namespace: Node caches ES modules for good, so a new namespace
 * is how edited files are read again. Old versions stay in memory (Node cannot unload
 * modules); that costs a little per reload, nothing per message.
 */
export class PluginModuleLoader {
  constructor() {
    registerSdkResolveHook();
  }

  async load(pluginDir: string, entry: string): Promise<PluginModuleScope> {
    const scope = register({ namespace: `${PLUGIN_MARKER}-${++versionCounter}` });
    const base = `${pathToFileURL(join(resolvePath(pluginDir), "plugin.json")).href}?${PLUGIN_MARKER}`;
    try {
      const entryModule = (await scope.import(`./${entry}`, base)) as Record<string, unknown>;
      return {
        entry: entryModule,
        importFromPlugin: async (specifier) =>
          (await scope.import(specifier, base)) as Record<string, unknown>,
        release: () => scope.unregister(),
      };
    } catch (error) {
      await scope.unregister();
      throw error;
    }
  }
}
