import { configJsonSchema } from "./schema.ts";

interface SchemaNode {
  type?: string | string[];
  description?: string;
  default?: unknown;
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
  oneOf?: SchemaNode[];
  additionalProperties?: boolean | SchemaNode;
}

interface KeyRow {
  key: string;
  defaultValue: string;
  description: string;
}

/**
 * Every config key as a Markdown table (key, default, meaning), generated from the config's
 * JSON Schema so the README cannot fall behind the code. Keys of tagged variants (adapter
 * modes, provider types) are listed once, naming the variants they belong to when not all.
 */
export function configKeyTable(): string {
  const rows: KeyRow[] = [];
  collect(configJsonSchema as unknown as SchemaNode, "", rows);
  const lines = ["| key | default | meaning |", "| --- | --- | --- |"];
  for (const row of rows) {
    lines.push(`| \`${row.key}\` | ${row.defaultValue} | ${row.description.replaceAll("|", "\\|")} |`);
  }
  return lines.join("\n");
}

function collect(node: SchemaNode, path: string, rows: KeyRow[]): void {
  if (node.oneOf) {
    collectVariants(node, path, rows);
    return;
  }
  const children = node.properties;
  if (node.type === "object" && children && Object.keys(children).length > 0) {
    for (const [name, child] of Object.entries(children))
      collect(child, path ? `${path}.${name}` : name, rows);
    return;
  }
  rows.push({ key: path, defaultValue: formatDefault(node.default), description: node.description ?? "" });
  if (node.type === "array" && node.items && (node.items.properties || node.items.oneOf)) {
    collect(node.items, `${path}[]`, rows);
  }
}

/** Merges the rows of each variant: a key shared by every variant alike appears once. */
function collectVariants(node: SchemaNode, path: string, rows: KeyRow[]): void {
  const tag = Object.keys(node.properties ?? {})[0] ?? "";
  const tagSchema = node.properties?.[tag];
  rows.push({
    key: `${path}.${tag}`,
    defaultValue: formatDefault(tagSchema?.default),
    description: `one of ${(tagSchema?.enum ?? []).map((v) => `\`${String(v)}\``).join(", ")}`,
  });
  const byKey = new Map<string, Array<KeyRow & { variant: string }>>();
  for (const option of node.oneOf ?? []) {
    const optionTag = option.properties?.[tag];
    const variant = String(optionTag?.const ?? optionTag?.enum?.join(" / ") ?? "");
    const optionRows: KeyRow[] = [];
    const { [tag]: _tag, ...fields } = option.properties ?? {};
    collect({ ...option, properties: fields }, path, optionRows);
    for (const row of optionRows) {
      const list = byKey.get(row.key) ?? [];
      list.push({ ...row, variant });
      byKey.set(row.key, list);
    }
  }
  const variantCount = node.oneOf?.length ?? 0;
  for (const [key, list] of byKey) {
    const first = list[0]!;
    const uniform = list.every(
      (r) => r.defaultValue === first.defaultValue && r.description === first.description,
    );
    if (uniform && list.length === variantCount) {
      rows.push({ key, defaultValue: first.defaultValue, description: first.description });
      continue;
    }
    for (const row of list) {
      rows.push({
        key,
        defaultValue: row.defaultValue,
        description: `(${tag} ${row.variant}) ${row.description}`,
      });
    }
  }
}

function formatDefault(value: unknown): string {
  return value === undefined ? "—" : `\`${JSON.stringify(value)}\``;
}
