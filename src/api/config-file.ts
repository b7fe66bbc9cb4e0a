import { randomUUID } from "node:crypto";
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { isMap, isScalar, isSeq, parseDocument } from "yaml";
import { ConfigError, loadConfig } from "../config/load.ts";
import type { TsumugiConfig } from "../config/schema.ts";
import { printEdited } from "../config/yaml-edit.ts";
import type { KeyPath } from "../schema/key-path.ts";
import type { JsonSchema } from "../sdk/types.ts";
import { consoleEditProblems, restoreSecrets } from "./config-secrets.ts";

export type SaveResult = { ok: true; config: TsumugiConfig } | { ok: false; problems: string[] };

export function readConfigText(file: string | undefined): string {
  return file !== undefined && existsSync(file) ? readFileSync(file, "utf8") : "";
}

/**
 * Checks `text` as a console edit of `file` (no `${VAR}` reference or alias added, no kept
 * secret sent elsewhere) and exactly as start-up would (YAML, `${VAR}` expansion, schema,
 * cross-checks) and, only when it passes, replaces `file` with it atomically. The config
 * watcher then applies it.
 */
export function saveConfigText(file: string, text: string, env: NodeJS.ProcessEnv): SaveResult {
  const refused = consoleEditProblems(text, readConfigText(file));
  if (refused.length > 0) return { ok: false, problems: refused };
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

/**
 * Saves a config text edited in the console's form (secrets kept shown as HIDDEN_SECRET) over
 * `file`: the kept secrets come back from the file unless their destination changed, then
 * saveConfigText's checks. What the console's config page saves, and what an instance adopts
 * of a config saved on another one.
 */
export function saveConsoleEdit(
  file: string,
  edited: string,
  env: NodeJS.ProcessEnv,
  secretsSchema: JsonSchema,
): SaveResult {
  const restored = restoreSecrets(edited, readConfigText(file), secretsSchema);
  if ("problems" in restored) return { ok: false, problems: restored.problems };
  return saveConfigText(file, restored.text, env);
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
  return printEdited(document, text);
}

/** A change of the `plugins` section made from the console. */
export type PluginSettingChange =
  | { kind: "enable" | "disable"; ref: string }
  | {
      kind: "config";
      pluginId: string;
      config: Record<string, unknown>;
      /** Paths inside the config whose value in the file stays as written (kept secrets). */
      kept?: KeyPath[];
    };

/**
 * The config text with one plugin change written into `plugins.disabled` or
 * `plugins.config.<id>`, so it outlasts a restart; every other line stays as it was.
 */
export function withPluginSetting(text: string, change: PluginSettingChange): string {
  const document = parseDocument(text);
  if (change.kind === "config") {
    const at = ["plugins", "config", change.pluginId];
    // A kept secret stays as the file has it, e.g. a `${VAR}` reference rather than its value.
    const kept = (change.kept ?? []).map((path) => ({ path, node: document.getIn([...at, ...path], true) }));
    document.setIn(at, document.createNode(change.config));
    for (const { path, node } of kept) if (node !== undefined) document.setIn([...at, ...path], node);
    return printEdited(document, text);
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
  return printEdited(document, text);
}

/**
 * The config text with one group's talkValue set (`chat.groups.<id>.participation.talkValue`,
 * the map made where missing); every other line, comments included, stays as it was.
 */
export function withGroupTalkValue(text: string, groupId: string, talkValue: number): string {
  const document = parseDocument(text);
  document.setIn(["chat", "groups", groupId, "participation", "talkValue"], talkValue);
  return printEdited(document, text);
}
