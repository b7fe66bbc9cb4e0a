import { keyDescriptionsZh } from "./key-descriptions-zh.ts";
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

/** One row of the key table, in no language yet: the README renders it in English and Chinese. */
export interface KeyRow {
  key: string;
  defaultValue: string;
  /** The schema's (English) description. */
  description: string;
  /** Set on the tag of a tagged union (adapter mode, provider type): the values it takes. */
  choices?: string[];
  /** Set when the row holds for some variants of a tagged union only: the tag and those variants' values. */
  variant?: { tag: string; values: string[] };
}

export type KeyTableLanguage = "en" | "zh";

/**
 * Every config key as a Markdown table (key, default, meaning), generated from the config's
 * JSON Schema so the README cannot fall behind the code. Keys of tagged variants (adapter
 * modes, provider types) are listed once, naming the variants they belong to when not all.
 * The Chinese table takes its descriptions from key-descriptions-zh.ts and throws when that
 * file lacks a key or names one the schema no longer has.
 */
export function configKeyTable(language: KeyTableLanguage = "en"): string {
  const rows = configKeyRows();
  if (language === "zh") requireChineseDescriptions(rows, keyDescriptionsZh);
  const lines =
    language === "en"
      ? ["| key | default | meaning |", "| --- | --- | --- |"]
      : ["| 配置项 | 默认值 | 说明 |", "| --- | --- | --- |"];
  for (const row of rows) {
    const meaning = language === "en" ? englishMeaning(row) : chineseMeaning(row);
    lines.push(`| \`${row.key}\` | ${row.defaultValue} | ${meaning.replaceAll("|", "\\|")} |`);
  }
  return lines.join("\n");
}

export function configKeyRows(): KeyRow[] {
  const rows: KeyRow[] = [];
  collect(configJsonSchema as unknown as SchemaNode, "", rows);
  return rows;
}

/**
 * What key-descriptions-zh.ts calls a row: its key, followed by its variant as the English
 * table writes it when the row holds for some variants only, e.g. "adapters[].path (mode http)".
 * Tag rows have none: their text is generated from the values.
 */
export function chineseDescriptionId(row: KeyRow): string {
  return row.variant ? `${row.key} (${row.variant.tag} ${row.variant.values.join(" / ")})` : row.key;
}

/** Throws naming every row without a Chinese description and every description of no row. */
export function requireChineseDescriptions(
  rows: KeyRow[],
  descriptions: Readonly<Record<string, string>>,
): void {
  const ids = new Set(rows.filter((row) => !row.choices).map(chineseDescriptionId));
  const missing = [...ids].filter((id) => !descriptions[id]);
  const extra = Object.keys(descriptions).filter((id) => !ids.has(id));
  if (missing.length === 0 && extra.length === 0) return;
  throw new Error(
    [
      "src/config/key-descriptions-zh.ts does not match the config schema.",
      ...(missing.length > 0 ? [`Keys without a Chinese description: ${missing.join(", ")}`] : []),
      ...(extra.length > 0 ? [`Descriptions of keys that do not exist: ${extra.join(", ")}`] : []),
    ].join("\n"),
  );
}

function englishMeaning(row: KeyRow): string {
  if (row.choices) return `one of ${row.choices.map((value) => `\`${value}\``).join(", ")}`;
  const variant = row.variant ? `(${row.variant.tag} ${row.variant.values.join(" / ")}) ` : "";
  return `${variant}${row.description}`;
}

function chineseMeaning(row: KeyRow): string {
  if (row.choices) return `可选值：${row.choices.map((value) => `\`${value}\``).join("、")}`;
  const description = keyDescriptionsZh[chineseDescriptionId(row)];
  if (!row.variant) return description!;
  const values = row.variant.values.map((value) => `\`${value}\``);
  const alternatives =
    values.length > 1 ? `${values.slice(0, -1).join("、")} 或 ${values.at(-1)}` : values.join("");
  return `（\`${row.variant.tag}\` 为 ${alternatives} 时）${description}`;
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
    description: "",
    choices: (tagSchema?.enum ?? []).map(String),
  });
  const byKey = new Map<string, Array<KeyRow & { values: string[] }>>();
  for (const option of node.oneOf ?? []) {
    const optionTag = option.properties?.[tag];
    const values =
      optionTag?.const === undefined ? (optionTag?.enum ?? []).map(String) : [String(optionTag.const)];
    const optionRows: KeyRow[] = [];
    const { [tag]: _tag, ...fields } = option.properties ?? {};
    collect({ ...option, properties: fields }, path, optionRows);
    // A variant that is itself a union repeats this tag in its own variants: listed above.
    for (const row of optionRows.filter((r) => r.key !== `${path}.${tag}`)) {
      const list = byKey.get(chineseDescriptionId(row)) ?? [];
      list.push({ ...row, values });
      byKey.set(chineseDescriptionId(row), list);
    }
  }
  const variantCount = node.oneOf?.length ?? 0;
  for (const list of byKey.values()) {
    const first = list[0]!;
    const uniform = list.every(
      (r) => r.defaultValue === first.defaultValue && r.description === first.description,
    );
    if (uniform && list.length === variantCount) {
      const { values: _values, ...row } = first;
      rows.push(row);
      continue;
    }
    // A row of a nested union keeps its innermost variant (`mode http` rather than `type onebot`).
    for (const { values, ...row } of list) rows.push({ ...row, variant: row.variant ?? { tag, values } });
  }
}

function formatDefault(value: unknown): string {
  return value === undefined ? "—" : `\`${JSON.stringify(value)}\``;
}
