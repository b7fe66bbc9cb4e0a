import { type Built, buildTool } from "../components/builders.ts";
import type { Component } from "../components/types.ts";
import type { PluginModuleScope } from "./module-loader.ts";
import { assertUniqueNames, type LoadedPlugin, type RuntimeLoadRequest } from "./runtime.ts";

interface FunctionDeclaration {
  name: string;
  description: string;
  parameters?: Record<string, unknown>;
}

type ToolFunction = (bot: unknown, event: unknown, config: unknown, args: Record<string, unknown>) => unknown;

/**
 * Seed 004's style: the entry exports `pluginDescription`, flat `functionDeclarations` and
 * `dynamicImports` (`{"./module.ts": ["fnName"]}`). A function's module is imported the
 * first time the model calls it; the call is `fn(bot, event, config, args)`, so model
 * arguments only ever arrive in `args` and cannot replace the three injected values.
 */
export function loadFunctionPlugin(scope: PluginModuleScope, request: RuntimeLoadRequest): LoadedPlugin {
  const { entry } = scope;
  const pluginId = request.manifest.id;
  const declarations = entry.functionDeclarations as unknown[];
  const moduleOf = importTable(entry.dynamicImports);
  const modules = new Map<string, Promise<Record<string, unknown>>>();

  const functionNamed = async (name: string, modulePath: string): Promise<ToolFunction> => {
    let loading = modules.get(modulePath);
    if (!loading) {
      loading = scope.importFromPlugin(modulePath);
      modules.set(modulePath, loading);
      // A failed import is retried on the next call (the file may be fixed meanwhile).
      loading.catch(() => modules.delete(modulePath));
    }
    const fn = (await loading)[name];
    if (typeof fn !== "function") throw new Error(`${modulePath} does not export a function named ${name}`);
    return fn as ToolFunction;
  };

  const components: Built<Component>[] = declarations.map((raw, index) => {
    const declaration = checkDeclaration(raw, index);
    const modulePath = moduleOf.get(declaration.name);
    if (!modulePath) {
      throw new Error(
        `functionDeclarations names "${declaration.name}" but dynamicImports does not say which module has it`,
      );
    }
    return buildTool(
      { pluginId, name: declaration.name },
      { description: declaration.description, parameters: declaration.parameters ?? {} },
      request.manifest.timeout,
      request.ajv,
      async (args, call) =>
        (await functionNamed(declaration.name, modulePath))(call.bot, call.event, request.config(), args),
    );
  });
  assertUniqueNames(components, pluginId);
  return {
    ...(typeof entry.pluginDescription === "string" ? { description: entry.pluginDescription } : {}),
    components,
    configChanged: async () => {},
    unload: async () => {},
  };
}

function checkDeclaration(raw: unknown, index: number): FunctionDeclaration {
  const where = `functionDeclarations[${index}]`;
  if (typeof raw !== "object" || raw === null) throw new Error(`${where} must be an object`);
  const entry = raw as Record<string, unknown>;
  if (entry.type === "function" && typeof entry.function === "object") {
    throw new Error(
      `${where} is wrapped in {"type":"function","function":…}: declare it flat as {name, description, parameters}; the host wraps it per provider`,
    );
  }
  if (typeof entry.name !== "string" || !entry.name) throw new Error(`${where} needs a name`);
  if (typeof entry.description !== "string") throw new Error(`${where} (${entry.name}) needs a description`);
  if (entry.parameters !== undefined && (typeof entry.parameters !== "object" || entry.parameters === null)) {
    throw new Error(`${where} (${entry.name}): parameters must be an object JSON Schema`);
  }
  return entry as unknown as FunctionDeclaration;
}

/** Function name → module path, from `dynamicImports`. */
function importTable(raw: unknown): Map<string, string> {
  const table = new Map<string, string>();
  if (raw === undefined) return table;
  if (typeof raw !== "object" || raw === null)
    throw new Error("dynamicImports must map module paths to function names");
  for (const [modulePath, names] of Object.entries(raw)) {
    if (!Array.isArray(names) || names.some((name) => typeof name !== "string")) {
      throw new Error(`dynamicImports["${modulePath}"] must be a list of function names`);
    }
    for (const name of names as string[]) table.set(name, modulePath);
  }
  return table;
}
