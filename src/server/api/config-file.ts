import { randomUUID } from "node:crypto";
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { isMap, isScalar, isSeq, type Pair, parseDocument, type Scalar } from "yaml";
import { formatKeyPath } from "../../config/key-path.ts";
import { ConfigError, loadConfig } from "../../config/load.ts";
import type { TsumugiConfig } from "../../config/schema.ts";

/** Shown in place of a secret; saving it back keeps the value the file already has. */
export const HIDDEN_SECRET = "********";
const SECRET_KEYS = new Set(["apiKey", "accessToken", "token", "secret", "password"]);

export type SaveResult = { ok: true; config: TsumugiConfig } | { ok: false; problems: string[] };

export function readConfigText(file: string | undefined): string {
  return file !== undefined && existsSync(file) ? readFileSync(file, "utf8") : "";
}

/**
 * The config text with every literal secret replaced by HIDDEN_SECRET, so the console never
 * receives one; `${VAR}` references and empty values are shown as they are. Undefined when
 * the text is not valid YAML, as secrets could not be found in it.
 */
export function maskSecrets(text: string): string | undefined {
  const document = parseDocument(text);
  if (document.errors.length > 0) return undefined;
  let masked = false;
  forEachSecret(document.contents, [], (pair) => {
    const scalar = pair.value;
    if (
      isScalar(scalar) &&
      typeof scalar.value === "string" &&
      scalar.value !== "" &&
      !scalar.value.includes("${")
    ) {
      scalar.value = HIDDEN_SECRET;
      masked = true;
    }
  });
  return masked ? document.toString() : text;
}

/**
 * Puts the saved secrets back where the edited text still holds HIDDEN_SECRET. Entries of a
 * list are matched by their `id` (so reordering providers keeps each key with its provider),
 * other keys by path. A placeholder with no saved value at its place is a problem.
 */
export function restoreSecrets(edited: string, current: string): { text: string } | { problems: string[] } {
  if (!edited.includes(HIDDEN_SECRET)) return { text: edited };
  const document = parseDocument(edited);
  if (document.errors.length > 0) return { text: edited };
  const saved = new Map<string, Scalar>();
  forEachSecret(parseDocument(current).contents, [], (pair, path) => {
    if (isScalar(pair.value) && typeof pair.value.value === "string") saved.set(placeOf(path), pair.value);
  });
  const problems: string[] = [];
  forEachSecret(document.contents, [], (pair, path) => {
    if (!isScalar(pair.value) || pair.value.value !== HIDDEN_SECRET) return;
    // The saved node itself, so the value keeps the quoting it was written with.
    const kept = saved.get(placeOf(path));
    if (kept) pair.value = kept.clone();
    else
      problems.push(
        `${formatKeyPath(path.map(indexOf))}: hidden value has no saved value to keep; type it again`,
      );
  });
  return problems.length > 0 ? { problems } : { text: document.toString() };
}

/** A list entry: its index, and its `id` when it has one. */
interface Entry {
  index: number;
  id?: string;
}
type SecretPath = Array<string | Entry>;

function placeOf(path: SecretPath): string {
  return JSON.stringify(path.map((step) => (typeof step === "string" ? step : (step.id ?? step.index))));
}

function indexOf(step: string | Entry): string | number {
  return typeof step === "string" ? step : step.index;
}

function forEachSecret(
  node: unknown,
  path: SecretPath,
  visit: (pair: Pair<unknown, unknown>, path: SecretPath) => void,
): void {
  if (isMap(node)) {
    for (const pair of node.items) {
      const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
      if (SECRET_KEYS.has(key)) visit(pair, [...path, key]);
      else forEachSecret(pair.value, [...path, key], visit);
    }
  } else if (isSeq(node)) {
    for (const [index, item] of node.items.entries()) {
      const id = isMap(item) ? item.get("id") : undefined;
      forEachSecret(item, [...path, typeof id === "string" ? { index, id } : { index }], visit);
    }
  }
}

/**
 * Checks `text` exactly as start-up would (YAML, `${VAR}` expansion, schema, cross-checks) and,
 * only when it loads, replaces `file` with it atomically. The config watcher then applies it.
 */
export function saveConfigText(file: string, text: string, env: NodeJS.ProcessEnv): SaveResult {
  const draft = `${file}.${randomUUID()}.tmp`;
  writeFileSync(draft, text, { mode: 0o600 });
  try {
    const { config } = loadConfig({ file: draft, env, cwd: dirname(file) });
    renameSync(draft, file);
    return { ok: true, config };
  } catch (error) {
    rmSync(draft, { force: true });
    // Not only ConfigError: the YAML library throws on some documents it parsed (an alias
    // such as `*name` with no anchor), and that too is a problem with the text.
    const problems =
      error instanceof ConfigError ? error.problems : [`${draft}: ${(error as Error).message}`];
    return { ok: false, problems: problems.map((problem) => problem.replaceAll(draft, file)) };
  }
}

export interface ModelSetup {
  providerId: string;
  type: string;
  baseUrl?: string;
  /** Remote providers only. */
  apiKey?: string;
  /** The model name on the provider; for `llama-cpp`, the GGUF path or recommended model. */
  model: string;
}

/**
 * The config text with the provider `providerId` set (replaced or added) and the planner and
 * replyer using `model` on it; every other line, comments included, stays as it was.
 */
export function withModelSetup(text: string, setup: ModelSetup): string {
  const document = parseDocument(text);
  const provider: Record<string, string> = { id: setup.providerId, type: setup.type };
  if (setup.type === "llama-cpp") provider.model = setup.model;
  else {
    if (setup.baseUrl) provider.baseUrl = setup.baseUrl;
    provider.apiKey = setup.apiKey ?? "";
  }
  const providers = document.getIn(["llm", "providers"]);
  const index = isSeq(providers)
    ? providers.items.findIndex((item) => isMap(item) && item.get("id") === setup.providerId)
    : -1;
  if (index >= 0) document.setIn(["llm", "providers", index], document.createNode(provider));
  else if (isSeq(providers)) providers.add(document.createNode(provider));
  else document.setIn(["llm", "providers"], document.createNode([provider]));
  const ref = `${setup.providerId}/${setup.model}`;
  document.setIn(["llm", "models", "planner"], document.createNode([ref]));
  document.setIn(["llm", "models", "replyer"], document.createNode([ref]));
  return document.toString();
}

/** A change of the `plugins` section made from the console. */
export type PluginSettingChange =
  | { kind: "enable" | "disable"; ref: string }
  | { kind: "config"; pluginId: string; config: Record<string, unknown> };

/**
 * The config text with one plugin change written into `plugins.disabled` or
 * `plugins.config.<id>`, so it outlasts a restart; every other line stays as it was.
 */
export function withPluginSetting(text: string, change: PluginSettingChange): string {
  const document = parseDocument(text);
  if (change.kind === "config") {
    document.setIn(["plugins", "config", change.pluginId], document.createNode(change.config));
    return document.toString();
  }
  const listed = document.getIn(["plugins", "disabled"]);
  const disabled = isSeq(listed)
    ? listed.items.map((item) => String(isScalar(item) ? item.value : item))
    : [];
  const next =
    change.kind === "disable"
      ? [...new Set([...disabled, change.ref])]
      : disabled.filter((ref) => ref !== change.ref);
  document.setIn(["plugins", "disabled"], document.createNode(next));
  return document.toString();
}
