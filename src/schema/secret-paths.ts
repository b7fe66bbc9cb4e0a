import { isRecord } from "../util/values.ts";
import type { KeyPath } from "./key-path.ts";

/**
 * Where secrets are, read from JSON Schema: a field marked `writeOnly: true` (the standard
 * annotation; the config schema marks keys, tokens and header values with it) or
 * `format: "password"` (common in plugin config schemas) holds a secret. The console masks
 * them, the log redacts them, and a kept one is never sent to a new destination.
 */

/** The parts of JSON Schema that say where a value's children are described. */
interface SchemaNode {
  writeOnly?: boolean;
  format?: string;
  properties?: Record<string, SchemaNode>;
  patternProperties?: Record<string, SchemaNode>;
  additionalProperties?: boolean | SchemaNode;
  items?: SchemaNode | SchemaNode[];
  prefixItems?: SchemaNode[];
  oneOf?: SchemaNode[];
  anyOf?: SchemaNode[];
  allOf?: SchemaNode[];
  discriminator?: { propertyName: string };
  const?: unknown;
  enum?: unknown[];
  default?: unknown;
  $ref?: string;
}

export function isSecretSchema(schema: unknown): boolean {
  const node = asNode(schema);
  return node !== undefined && (node.writeOnly === true || node.format === "password");
}

/** A secret found in a value: where it is and what it holds. */
interface SecretEntry {
  path: KeyPath;
  value: unknown;
}

/** Every path in `value` that its schema marks as a secret (present values only). */
export function secretPaths(schema: unknown, value: unknown): KeyPath[] {
  return secretEntries(schema, value).map((entry) => entry.path);
}

/**
 * The secret strings in `value`, longest first, for redacting free text (a plugin's stderr):
 * each string at a secret path, and the password of one that is a URL (`storage.url`).
 */
export function secretValues(schema: unknown, value: unknown): string[] {
  const found = new Set<string>();
  for (const entry of secretEntries(schema, value)) {
    if (typeof entry.value !== "string" || entry.value === "") continue;
    found.add(entry.value);
    for (const password of urlPasswords(entry.value)) found.add(password);
  }
  return [...found].sort((a, b) => b.length - a.length);
}

/** `secretValues` of a config that is replaced (never changed in place) on reload, read again only then. */
export function secretValuesOf(schema: unknown, current: () => unknown): () => string[] {
  let read: { value: unknown; secrets: string[] } | undefined;
  return () => {
    const value = current();
    if (read === undefined || read.value !== value) read = { value, secrets: secretValues(schema, value) };
    return read.secrets;
  };
}

function secretEntries(schema: unknown, value: unknown): SecretEntry[] {
  const found = new Map<string, SecretEntry>();
  const root = asNode(schema);
  if (root) walkValue(root, value, [], root, new Set(), found);
  return [...found.values()];
}

/** A URL's password as written (percent-encoded) and decoded; none when `text` is no URL or has none. */
function urlPasswords(text: string): string[] {
  const password = URL.canParse(text) ? new URL(text).password : "";
  if (!password) return [];
  try {
    return [password, decodeURIComponent(password)];
  } catch {
    return [password];
  }
}

/**
 * The secret fields of a schema as redaction paths (`llm.providers[*].apiKey`,
 * `llm.providers[*].headers.*`), the syntax pino's `redact` takes.
 */
export function secretPatterns(schema: unknown): string[] {
  const found = new Set<string>();
  const root = asNode(schema);
  if (root) walkSchema(root, "", root, new Set(), found);
  return [...found];
}

function walkValue(
  schema: SchemaNode,
  value: unknown,
  path: KeyPath,
  root: SchemaNode,
  // Schemas already applied to this very value: a `$ref` cycle ends here.
  applied: Set<SchemaNode>,
  found: Map<string, SecretEntry>,
): void {
  if (value === undefined || applied.has(schema)) return;
  applied.add(schema);
  if (schema.$ref !== undefined) {
    const target = refTarget(schema.$ref, root);
    if (target) walkValue(target, value, path, root, applied, found);
    return;
  }
  if (isSecretSchema(schema)) {
    found.set(JSON.stringify(path), { path, value });
    return;
  }
  for (const part of [...(schema.allOf ?? []), ...variantsFor(schema, value)]) {
    walkValue(part, value, path, root, applied, found);
  }
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const itemSchema = itemSchemaAt(schema, index);
      if (itemSchema) walkValue(itemSchema, item, [...path, index], root, new Set(), found);
    }
  } else if (isRecord(value)) {
    for (const [key, item] of Object.entries(value)) {
      for (const child of propertySchemas(schema, key)) {
        walkValue(child, item, [...path, key], root, new Set(), found);
      }
    }
  }
}

function walkSchema(
  schema: SchemaNode,
  path: string,
  root: SchemaNode,
  // The schemas being walked above this one: a schema that contains itself (`$ref`) ends here.
  ancestors: Set<SchemaNode>,
  found: Set<string>,
): void {
  if (ancestors.has(schema)) return;
  ancestors.add(schema);
  const children: Array<[SchemaNode, string]> = [];
  if (schema.$ref !== undefined) {
    const target = refTarget(schema.$ref, root);
    if (target) children.push([target, path]);
  } else if (isSecretSchema(schema)) {
    if (path) found.add(path);
  } else {
    for (const part of [...(schema.allOf ?? []), ...(schema.oneOf ?? []), ...(schema.anyOf ?? [])]) {
      children.push([part, path]);
    }
    for (const [key, child] of Object.entries(schema.properties ?? {})) {
      children.push([child, propertyPattern(path, key)]);
    }
    const anyKey = [
      ...Object.values(schema.patternProperties ?? {}),
      ...(typeof schema.additionalProperties === "object" ? [schema.additionalProperties] : []),
    ];
    for (const child of anyKey) children.push([child, path ? `${path}.*` : "*"]);
    const items = [
      ...(schema.prefixItems ?? []),
      ...(Array.isArray(schema.items) ? schema.items : schema.items ? [schema.items] : []),
    ];
    for (const child of items) children.push([child, `${path}[*]`]);
  }
  for (const [child, childPath] of children) walkSchema(child, childPath, root, ancestors, found);
  ancestors.delete(schema);
}

function propertyPattern(path: string, key: string): string {
  if (!/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key)) return `${path}[${JSON.stringify(key)}]`;
  return path ? `${path}.${key}` : key;
}

/**
 * The variants of a `oneOf`/`anyOf` that describe `value`: with a discriminator, the one its
 * tag names (or the tag's default); otherwise, or when none matches, all of them, so a
 * secret of any variant stays a secret.
 */
function variantsFor(node: SchemaNode, value: unknown): SchemaNode[] {
  const variants = [...(node.oneOf ?? []), ...(node.anyOf ?? [])];
  const tag = node.discriminator?.propertyName;
  if (tag === undefined || !isRecord(value)) return variants;
  const tagValue = value[tag] ?? node.properties?.[tag]?.default;
  const named = variants.filter((variant) => {
    const tagSchema = variant.properties?.[tag];
    return tagSchema?.const === tagValue || tagSchema?.enum?.includes(tagValue) === true;
  });
  return named.length > 0 ? named : variants;
}

function itemSchemaAt(node: SchemaNode, index: number): SchemaNode | undefined {
  const tuple = node.prefixItems ?? (Array.isArray(node.items) ? node.items : undefined);
  if (tuple && index < tuple.length) return tuple[index];
  return Array.isArray(node.items) ? undefined : node.items;
}

/** The schemas that apply to property `key`, as JSON Schema decides it. */
function propertySchemas(node: SchemaNode, key: string): SchemaNode[] {
  const named = node.properties?.[key];
  const patterned = Object.entries(node.patternProperties ?? {})
    .filter(([pattern]) => new RegExp(pattern, "u").test(key))
    .map(([, schema]) => schema);
  const matched = [...(named ? [named] : []), ...patterned];
  if (matched.length > 0) return matched;
  return typeof node.additionalProperties === "object" ? [node.additionalProperties] : [];
}

/** A local `$ref` (`#/definitions/…`, `#/$defs/…`); other references are not followed. */
function refTarget(ref: string, root: SchemaNode): SchemaNode | undefined {
  if (!ref.startsWith("#")) return undefined;
  let target: unknown = root;
  for (const raw of ref.slice(1).split("/").slice(1)) {
    const step = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~");
    target = isRecord(target) ? target[step] : undefined;
  }
  return asNode(target);
}

function asNode(schema: unknown): SchemaNode | undefined {
  return isRecord(schema) ? (schema as SchemaNode) : undefined;
}
