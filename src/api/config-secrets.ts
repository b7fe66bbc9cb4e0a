import { type Document, isAlias, isMap, isNode, isScalar, isSeq, parseDocument, Scalar } from "yaml";
import { envReferences, isBareReference } from "../config/expand-env.ts";
import { configJsonSchema } from "../config/schema.ts";
import { printEdited } from "../config/yaml-edit.ts";
import { formatKeyPath, type KeyPath } from "../schema/key-path.ts";
import { secretPaths } from "../schema/secret-paths.ts";
import type { JsonSchema } from "../sdk/types.ts";

/**
 * Secrets in what the console reads and writes. Where a secret is comes from the schema
 * (`writeOnly` / `format: "password"`), never from a key's name. The console is shown
 * HIDDEN_SECRET instead of a secret and may send it back to keep the saved value; a kept
 * secret never follows its provider or adapter to a new destination, and a console edit
 * cannot add a `${VAR}` reference or YAML alias, which could read any variable of the
 * process (or another secret) into prompts and the timeline.
 */

/** Shown in place of a secret; saving it back keeps the value saved before. */
export const HIDDEN_SECRET = "********";

/**
 * The keys that say where a list entry's secrets are sent: when one of them changes, a kept
 * secret of that entry (masked, or a `${VAR}` reference) must be typed again.
 */
const DESTINATIONS = [
  { list: ["llm", "providers"], owner: "provider", keys: ["type", "baseUrl"] },
  { list: ["adapters"], owner: "adapter", keys: ["mode", "url"] },
  { list: ["mcp", "servers"], owner: "MCP server", keys: ["url", "command"] },
];

/** The config schema with each plugin's own config schema under `plugins.config.<id>`. */
export function configSchemaWithPlugins(pluginSchemas: Record<string, JsonSchema>): JsonSchema {
  const plugins = configJsonSchema.properties.plugins;
  return {
    ...configJsonSchema,
    properties: {
      ...configJsonSchema.properties,
      plugins: {
        ...plugins,
        properties: {
          ...plugins.properties,
          config: { ...plugins.properties.config, properties: pluginSchemas },
        },
      },
    },
  };
}

/** The schema whose secrets the console hides: the config's, with each plugin's own config schema. */
export function consoleSecretsSchema(
  plugins: ReadonlyArray<{ id: string; configSchema?: JsonSchema | undefined }>,
): JsonSchema {
  return configSchemaWithPlugins(
    Object.fromEntries(
      plugins.flatMap((plugin) => (plugin.configSchema ? [[plugin.id, plugin.configSchema]] : [])),
    ),
  );
}

/**
 * A value worth hiding: set, more than the name of an environment variable, and not a
 * `sqlite:` path (storage.url is a secret for the password a PostgreSQL URL holds; a file
 * path holds none, and the operator needs to see where the database is).
 */
function isShownSecret(value: unknown): boolean {
  if (value === undefined || value === null || value === "") return false;
  return !(typeof value === "string" && (isBareReference(value) || /^sqlite:/i.test(value)));
}

/**
 * The config text with every secret replaced by HIDDEN_SECRET; empty values and bare
 * `${VAR}` references stay as they are. Undefined when the text is not valid YAML, as
 * secrets could not be found in it.
 */
export function maskSecrets(text: string, schema: JsonSchema): string | undefined {
  const document = parseDocument(text);
  const value = plainValue(document);
  if (document.errors.length > 0 || value === undefined) return undefined;
  let masked = false;
  for (const path of secretPaths(schema, value)) {
    // Through aliases, so the anchored node itself is hidden wherever it is written.
    const node = nodeAt(document, path, true);
    // A secret whose node cannot be found (an unusual key) could not be hidden: show nothing.
    if (node === undefined) return undefined;
    if (isScalar(node) && !isShownSecret(node.value)) continue;
    if (isScalar(node)) node.value = HIDDEN_SECRET;
    else replaceAt(document, path, new Scalar(HIDDEN_SECRET));
    masked = true;
  }
  // Untouched, the text is shown exactly as written.
  return masked ? printEdited(document, text) : text;
}

/**
 * `saved` as the console edit of `before` it could have been: each secret the save kept (the
 * same value, its provider, adapter or MCP server still pointing where it did) is
 * HIDDEN_SECRET; a secret typed anew stays. So restoreSecrets against another file puts that
 * file's own secrets back, and never lets one follow a changed destination.
 */
export function hideKeptSecrets(saved: string, before: string, schema: JsonSchema): string {
  const document = parseDocument(saved);
  const value = plainValue(document);
  // A saved text always parses (it was loaded before it was written).
  if (document.errors.length > 0 || value === undefined) return saved;
  const previous = parseDocument(before);
  let hidden = false;
  for (const path of secretPaths(schema, value)) {
    const node = nodeAt(document, path, false);
    if (!isScalar(node) || !isShownSecret(node.value)) continue;
    const previousPath = counterpart(document, previous, path);
    const kept = previousPath && nodeAt(previous, previousPath, false);
    if (!previousPath || !isScalar(kept) || kept.value !== node.value) continue;
    if (destinationChange(document, previous, path, previousPath)) continue;
    node.value = HIDDEN_SECRET;
    hidden = true;
  }
  return hidden ? printEdited(document, saved) : saved;
}

/**
 * Puts the saved secrets back where the edited text holds HIDDEN_SECRET. List entries are
 * matched by their `id` (reordered providers keep their keys), other keys by path. A
 * placeholder with nothing saved at its place, or whose provider/adapter now points
 * elsewhere, is a problem.
 */
export function restoreSecrets(
  edited: string,
  current: string,
  schema: JsonSchema,
): { text: string } | { problems: string[] } {
  const document = parseDocument(edited);
  const value = plainValue(document);
  // A text that does not parse is reported by the save, with the position of the error.
  if (document.errors.length > 0 || value === undefined) return { text: edited };
  const saved = parseDocument(current);
  const problems: string[] = [];
  for (const path of secretPaths(schema, value)) {
    const node = nodeAt(document, path, false);
    if (!isScalar(node) || node.value !== HIDDEN_SECRET) continue;
    const savedPath = counterpart(document, saved, path);
    const kept = savedPath && nodeAt(saved, savedPath, false);
    if (!savedPath || !isNode(kept)) {
      problems.push(`${formatKeyPath(path)}: hidden value has no saved value to keep; type it again`);
      continue;
    }
    const moved = destinationChange(document, saved, path, savedPath);
    if (moved) problems.push(`${formatKeyPath(path)}: ${moved}; type the key again`);
    // The saved node itself, so the value keeps the quoting it was written with.
    else replaceAt(document, path, kept.clone());
  }
  return problems.length > 0 ? { problems } : { text: printEdited(document, edited) };
}

/**
 * What a console edit may not do, compared with the file it replaces: add a `${VAR}`
 * reference or a YAML alias where the file has no identical one at the same place (start-up
 * from the file keeps expanding them), or keep a referenced secret while its provider or
 * adapter points elsewhere.
 */
export function consoleEditProblems(edited: string, current: string): string[] {
  const document = parseDocument(edited);
  // A text that does not parse is reported by the load, with the position of the error.
  if (document.errors.length > 0) return [];
  const saved = parseDocument(current);
  const problems: string[] = [];
  forEachNode(document.contents, [], (node, path) => {
    const added = referencesOf(node);
    if (added.length === 0) return;
    const savedPath = counterpart(document, saved, path);
    const known = new Set(savedPath ? referencesOf(nodeAt(saved, savedPath, false)) : []);
    const unknown = added.find((reference) => !known.has(reference));
    if (unknown === undefined) return;
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the problem names the syntax, not a value.
    const what = unknown.startsWith("*") ? "YAML aliases (*name)" : "${VAR} references";
    problems.push(`${formatKeyPath(path)}: ${what} can only be added by editing the file on the server`);
  });
  const value = plainValue(document);
  if (value === undefined) return problems;
  for (const path of secretPaths(configJsonSchema, value)) {
    const node = nodeAt(document, path, false);
    if (!isScalar(node) || typeof node.value !== "string" || envReferences(node.value).length === 0) continue;
    const savedPath = counterpart(document, saved, path);
    const moved = savedPath && destinationChange(document, saved, path, savedPath);
    if (moved) problems.push(`${formatKeyPath(path)}: ${moved}; type the key again`);
  }
  return problems;
}

/** A copy of `value` with every set secret of `schema` replaced by HIDDEN_SECRET. */
export function maskValue<T>(value: T, schema: JsonSchema): T {
  const copy = structuredClone(value);
  for (const path of secretPaths(schema, copy)) {
    if (isShownSecret(valueAt(copy, path))) setValueAt(copy, path, HIDDEN_SECRET);
  }
  return copy;
}

/**
 * `edited` with the value of `current` wherever it holds HIDDEN_SECRET at a secret of
 * `schema`; `kept` lists those paths. `where` names a path in a problem line.
 */
export function restoreValue<T>(
  edited: T,
  current: unknown,
  schema: JsonSchema,
  where: (path: KeyPath) => string,
): { value: T; kept: KeyPath[] } | { problems: string[] } {
  const value = structuredClone(edited);
  const kept: KeyPath[] = [];
  const problems: string[] = [];
  for (const path of secretPaths(schema, value)) {
    if (valueAt(value, path) !== HIDDEN_SECRET) continue;
    const saved = valueAt(current, path);
    if (saved === undefined) {
      problems.push(`${where(path)}: hidden value has no saved value to keep; type it again`);
      continue;
    }
    setValueAt(value, path, saved);
    kept.push(path);
  }
  return problems.length > 0 ? { problems } : { value, kept };
}

/** Why a secret at `path` may not be kept: its entry's destination changed; undefined when it did not. */
function destinationChange(
  document: Document,
  saved: Document,
  path: KeyPath,
  savedPath: KeyPath,
): string | undefined {
  for (const { list, owner, keys } of DESTINATIONS) {
    if (path.length <= list.length + 1 || !list.every((key, index) => path[index] === key)) continue;
    const entry = path.slice(0, list.length + 1);
    const savedEntry = savedPath.slice(0, list.length + 1);
    for (const key of keys) {
      const now = nodeAt(document, [...entry, key], false);
      const before = nodeAt(saved, [...savedEntry, key], false);
      if (textOf(now) !== textOf(before)) return `the ${owner}'s ${key} changed`;
    }
  }
  return undefined;
}

/** The place in `to` of the node at `path` in `from`: list entries with an `id` are matched by it, others by position. */
function counterpart(from: Document, to: Document, path: KeyPath): KeyPath | undefined {
  const result: Array<string | number> = [];
  let here: unknown = from.contents;
  let there: unknown = to.contents;
  for (const step of path) {
    if (typeof step === "number") {
      if (!isSeq(here) || !isSeq(there)) return undefined;
      const id = idOf(here.items[step]);
      const index =
        id === undefined
          ? idOf(there.items[step]) === undefined && step < there.items.length
            ? step
            : -1
          : there.items.findIndex((item) => idOf(item) === id);
      if (index < 0) return undefined;
      here = here.items[step];
      there = there.items[index];
      result.push(index);
    } else {
      here = childOf(here, step);
      there = childOf(there, step);
      if (there === undefined) return undefined;
      result.push(step);
    }
  }
  return result;
}

function idOf(node: unknown): string | undefined {
  const id = isMap(node) ? node.get("id") : undefined;
  return typeof id === "string" ? id : undefined;
}

/** What a node would read from elsewhere: its `${VAR}` references, or `*name` for an alias. */
function referencesOf(node: unknown): string[] {
  if (isAlias(node)) return [`*${node.source}`];
  if (isScalar(node) && typeof node.value === "string") return envReferences(node.value);
  return [];
}

function forEachNode(node: unknown, path: KeyPath, visit: (node: unknown, path: KeyPath) => void): void {
  visit(node, path);
  if (isMap(node)) {
    for (const pair of node.items) forEachNode(pair.value, [...path, keyText(pair.key)], visit);
  } else if (isSeq(node)) {
    for (const [index, item] of node.items.entries()) forEachNode(item, [...path, index], visit);
  }
}

function nodeAt(document: Document, path: KeyPath, followAliases: boolean): unknown {
  let node: unknown = document.contents;
  for (const step of path) {
    if (followAliases && isAlias(node)) node = node.resolve(document);
    node = childOf(node, step);
    if (node === undefined) return undefined;
  }
  return followAliases && isAlias(node) ? node.resolve(document) : node;
}

function childOf(node: unknown, step: string | number): unknown {
  if (isMap(node)) return node.items.find((pair) => keyText(pair.key) === String(step))?.value ?? undefined;
  if (isSeq(node) && typeof step === "number") return node.items[step];
  return undefined;
}

function replaceAt(document: Document, path: KeyPath, replacement: unknown): void {
  const parent = nodeAt(document, path.slice(0, -1), true);
  const step = path.at(-1);
  if (isMap(parent)) {
    const pair = parent.items.find((item) => keyText(item.key) === String(step));
    if (pair) pair.value = replacement;
  } else if (isSeq(parent) && typeof step === "number") {
    parent.items[step] = replacement;
  }
}

function keyText(key: unknown): string {
  return isScalar(key) ? String(key.value) : String(key);
}

/** A node as comparable text (a scalar's value, a collection or alias as written). */
function textOf(node: unknown): string | undefined {
  if (node === undefined || node === null) return undefined;
  return isScalar(node) ? JSON.stringify(node.value) : String(node);
}

/** The document as plain data; undefined when it cannot be (an alias with no anchor). */
function plainValue(document: Document): unknown {
  try {
    return document.toJS();
  } catch {
    return undefined;
  }
}

function valueAt(value: unknown, path: KeyPath): unknown {
  let here = value;
  for (const step of path) {
    if (here === null || typeof here !== "object") return undefined;
    here = (here as Record<string | number, unknown>)[step];
  }
  return here;
}

function setValueAt(value: unknown, path: KeyPath, replacement: unknown): void {
  const parent = valueAt(value, path.slice(0, -1));
  if (parent !== null && typeof parent === "object") {
    (parent as Record<string | number, unknown>)[path.at(-1)!] = replacement;
  }
}
