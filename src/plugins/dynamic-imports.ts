import { statSync } from "node:fs";
import { basename, isAbsolute, join, normalize } from "node:path";

const SCRIPT_EXTENSIONS = [".ts", ".mts", ".js", ".mjs"];

/**
 * Reads the `dynamic_imports` of a function-declaration plugin
 * (`{ modulePath: [functionName, …] }`) into function
 * name → module file (relative to the plugin folder), every path resolved now so a wrong
 * one fails the load instead of the model's first call. A key is a file path
 * (`./service.ts`, `lib/service`) or a dotted module path as Python writes it
 * (`run.gold_vault.service`): the longest tail of it that names a module in the folder
 * (`run/gold_vault/service.ts`, then `gold_vault/service.ts`, then `service.ts`; each also
 * as `…/index.ts`, and `.mts`, `.js`, `.mjs`), or the entry when it names the folder itself.
 */
export function readDynamicImports(
  raw: unknown,
  exportName: string,
  dir: string,
  entry: string,
): Map<string, string> {
  const table = new Map<string, string>();
  if (raw === undefined) return table;
  if (typeof raw !== "object" || raw === null) {
    throw new Error(`${exportName} must map module paths to function names`);
  }
  for (const [modulePath, names] of Object.entries(raw)) {
    if (!Array.isArray(names) || names.some((name) => typeof name !== "string")) {
      throw new Error(`${exportName}["${modulePath}"] must be a list of function names`);
    }
    const file = resolveModulePath(modulePath, dir, entry);
    if (!file) {
      throw new Error(`${exportName}["${modulePath}"] names no module in the plugin folder ${dir}`);
    }
    for (const name of names as string[]) table.set(name, file);
  }
  return table;
}

function resolveModulePath(modulePath: string, dir: string, entry: string): string | undefined {
  const isFilePath = modulePath.includes("/") || SCRIPT_EXTENSIONS.some((ext) => modulePath.endsWith(ext));
  if (isFilePath) {
    const path = normalize(modulePath);
    if (isAbsolute(path) || path.startsWith("..")) return undefined;
    return [path, ...moduleFiles(path)].find((file) => isFile(join(dir, file)));
  }
  const parts = modulePath.split(".");
  for (let start = 0; start < parts.length; start++) {
    const found = moduleFiles(parts.slice(start).join("/")).find((file) => isFile(join(dir, file)));
    if (found) return found;
  }
  return parts.at(-1) === basename(dir) ? entry : undefined;
}

/** The files a module path without extension may be. */
function moduleFiles(path: string): string[] {
  return [
    ...SCRIPT_EXTENSIONS.map((ext) => path + ext),
    ...SCRIPT_EXTENSIONS.map((ext) => join(path, `index${ext}`)),
  ];
}

function isFile(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isFile() === true;
}
