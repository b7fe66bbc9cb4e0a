import module from "node:module";
import { join, resolve as resolvePath } from "node:path";
import { pathToFileURL } from "node:url";
import { projectPath, RUNNING_COMPILED } from "../util/project-files.ts";

/** In the URLs of plugin code; the loader hooks give each load of a plugin its own value. */
const VERSION_PARAM = "tsumugi-plugin";

/**
 * Module hooks are process-wide in Node, so the plugin loader hooks are registered once per
 * process, by whichever loader is created first.
 */
let hooksRegistered = false;

function registerPluginLoaderHooks(): void {
  if (hooksRegistered) return;
  // Compiled, the hooks and the SDK are files beside the bundle (see scripts/build-server.ts).
  const sdk = RUNNING_COMPILED
    ? new URL("./sdk.mjs", import.meta.url)
    : new URL("../sdk/index.ts", import.meta.url);
  // Loaded like plugin code (so from sources its TypeScript is transpiled too), as one version
  // that every plugin shares.
  sdk.searchParams.set(VERSION_PARAM, "sdk");
  module.register(new URL("./plugin-loader-hooks.mjs", import.meta.url), {
    data: { sdkUrl: sdk.href, cacheDir: projectPath("node_modules", ".cache", "tsumugi", "plugins") },
  });
  hooksRegistered = true;
}

/** One loaded version of a plugin's code: its own module graph, so a reload sees edited files. */
export interface PluginModuleScope {
  /** The entry module's exports. */
  entry: Record<string, unknown>;
  /** Imports a module of the plugin (relative to its folder) within this version. */
  importFromPlugin(specifier: string): Promise<Record<string, unknown>>;
}

let versionCounter = 0;

/**
 * Imports plugin code (TypeScript with standard decorators, or JavaScript, from any folder)
 * through the hooks in plugin-loader-hooks.mjs, each load as a new version of its URLs: Node
 * caches ES modules for good, so a new version is how edited files are read again. Old
 * versions stay in memory (Node cannot unload modules); that costs a little per reload,
 * nothing per message.
 */
export class PluginModuleLoader {
  constructor() {
    registerPluginLoaderHooks();
  }

  async load(pluginDir: string, entry: string): Promise<PluginModuleScope> {
    const version = String(++versionCounter);
    const dir = resolvePath(pluginDir);
    const urlOf = (path: string) => {
      const url = pathToFileURL(path);
      url.searchParams.set(VERSION_PARAM, version);
      return url.href;
    };
    const entryModule = (await import(urlOf(join(dir, entry)))) as Record<string, unknown>;
    return {
      entry: entryModule,
      importFromPlugin: async (specifier) =>
        (await import(urlOf(join(dir, specifier)))) as Record<string, unknown>,
    };
  }
}
