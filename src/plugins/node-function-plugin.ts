import { isDeepStrictEqual } from "node:util";
import { type Built, buildTool } from "../components/builders.ts";
import type { Component } from "../components/types.ts";
import { readDynamicImports } from "./dynamic-imports.ts";
import type { PluginModuleScope } from "./module-loader.ts";
import { declaredParameters } from "./parameter-names.ts";
import { assertUniqueNames, type LoadedPlugin, type RuntimeLoadRequest } from "./runtime.ts";

interface FunctionDeclaration {
  name: string;
  description: string;
  parameters?: Record<string, unknown>;
}

type ToolFunction = (bot: unknown, event: unknown, config: unknown, ...business: unknown[]) => unknown;
type Arguments = Record<string, unknown>;

/** Each export under the camelCase name and under the snake_case one Python-style plugins write. */
const EXPORT_NAMES = {
  description: ["pluginDescription", "plugin_description"],
  declarations: ["functionDeclarations", "function_declarations"],
  imports: ["dynamicImports", "dynamic_imports"],
} as const;

/** Whether the entry declares functions (it exports the function declarations under either name). */
export function isFunctionPluginEntry(entry: Record<string, unknown>): boolean {
  return EXPORT_NAMES.declarations.some((name) => Array.isArray(entry[name]));
}

/**
 * The function-declaration style: the entry exports `pluginDescription`, flat `functionDeclarations` and
 * `dynamicImports` (or the snake_case `plugin_description`, `function_declarations`,
 * `dynamic_imports`). Module paths are checked at load; a module is imported the first time
 * the model calls one of its functions. The call is `fn(bot, event, config, …)`: the three
 * injected values come first and model arguments never replace them (see `businessArguments`).
 */
export function loadFunctionPlugin(scope: PluginModuleScope, request: RuntimeLoadRequest): LoadedPlugin {
  const { entry } = scope;
  const pluginId = request.manifest.id;
  const declarationsExport = exported(entry, EXPORT_NAMES.declarations);
  const importsExport = exported(entry, EXPORT_NAMES.imports);
  const description = exported(entry, EXPORT_NAMES.description).value;
  const declarations = (declarationsExport.value as unknown[]).map((raw, index) =>
    checkDeclaration(raw, `${declarationsExport.name}[${index}]`),
  );
  const moduleOf = readDynamicImports(
    importsExport.value,
    importsExport.name,
    request.dir,
    request.manifest.entry,
  );
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

  const components: Built<Component>[] = declarations.map((declaration) => {
    const modulePath = moduleOf.get(declaration.name);
    if (!modulePath) {
      throw new Error(
        `${declarationsExport.name} names "${declaration.name}" but ${importsExport.name} does not say which module has it`,
      );
    }
    const tool = buildTool(
      { pluginId, name: declaration.name },
      { description: declaration.description, parameters: declaration.parameters ?? {} },
      request.manifest.timeout,
      request.ajv,
      async (args, call) => {
        const fn = await functionNamed(declaration.name, modulePath);
        const business = businessArguments(fn, tool.component.parameters, args);
        // This style's `event` carries the class style's `context.pictures`, `memory` and `speech` too.
        const event = {
          ...call.event,
          pictures: call.pictures,
          memory: call.memoryFor(pluginId),
          speech: call.speech,
        };
        return fn(call.bot, event, request.config(), ...business);
      },
    );
    return tool;
  });
  assertUniqueNames(components, pluginId);
  return {
    ...(typeof description === "string" ? { description } : {}),
    components,
    configChanged: async () => {},
    unload: async () => {},
  };
}

/**
 * The function-declaration style writes `f(bot, event, config, target_name)`: when the names after the three
 * injected ones are plain parameters — two or more, or one the schema declares — the
 * arguments go in by those names. Otherwise (none, a destructuring pattern, a rest
 * parameter, or one undeclared name such as `args`) the fourth value is the whole object.
 */
function businessArguments(fn: ToolFunction, schema: Record<string, unknown>, args: Arguments): unknown[] {
  const properties = Object.keys((schema.properties as object | undefined) ?? {});
  const business = declaredParameters(fn).slice(3);
  const names = business.flatMap((parameter) => (parameter.kind === "name" ? [parameter.name] : []));
  const byName =
    names.length === business.length &&
    (names.length > 1 || (names.length === 1 && properties.includes(names[0]!)));
  return byName ? names.map((name) => args[name]) : [args];
}

/** An export under either of its names; the two spelled differently is a load error. */
function exported(
  entry: Record<string, unknown>,
  [camel, snake]: readonly [string, string],
): { name: string; value: unknown } {
  const camelValue = entry[camel];
  const snakeValue = entry[snake];
  if (camelValue !== undefined && snakeValue !== undefined && !isDeepStrictEqual(camelValue, snakeValue)) {
    throw new Error(`the entry exports both ${camel} and ${snake}, with different values: keep one`);
  }
  return camelValue !== undefined || snakeValue === undefined
    ? { name: camel, value: camelValue }
    : { name: snake, value: snakeValue };
}

function checkDeclaration(raw: unknown, where: string): FunctionDeclaration {
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
