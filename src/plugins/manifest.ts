import { readFile } from "node:fs/promises";
import { isAbsolute, join, normalize } from "node:path";
import type { Ajv } from "ajv";
import semver from "semver";
import { checkOnFirstUse } from "../schema/compile-on-first-use.ts";
import { PLUGIN_ID } from "../schema/formats.ts";
import type { JsonSchema } from "../sdk/types.ts";
import { SDK_VERSION } from "../sdk/version.ts";
import { createPluginAjv } from "./plugin-ajv.ts";

/** plugin.json (docs/plugins.md), defaults filled. */
export interface PluginManifest {
  id: string;
  name: string;
  version: string;
  description: string;
  /** `mcp`: a declared plugin's only (an MCP server from the config), never a folder's. */
  runtime: "node" | "stdio" | "python" | "mcp";
  /** node, python: module path inside the folder (python: a file or a package folder); stdio: the command line. */
  entry: string;
  /**
   * Semver range of host SDK versions the plugin works with. Required for node plugins;
   * stdio and python plugins may leave it out (xbot's manifests have none).
   */
  sdk?: string;
  /** Per-call limit in milliseconds (stdio), default for tools otherwise. */
  timeout: number;
  /** JSON Schema of `plugins.config.<id>`. */
  config: JsonSchema;
  /**
   * stdio: start the process again after a crash, a timeout or a failed activation (the first
   * one included), with exponential backoff. Default true.
   */
  autoRetry: boolean;
  /** stdio: restarts in a row before giving up; 0 = unlimited (default). See STABLE_UPTIME_MS. */
  maxRetries: number;
  /** stdio: names of the bot's environment variables passed to the process beside the basic ones. */
  env: string[];
  /** stdio: false gives an isolated process no network (only a loopback of its own). Default true. */
  network: boolean;
}

export const DEFAULT_TIMEOUT_MS = 30_000;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const manifestSchema = {
  type: "object",
  required: ["id", "version", "entry"],
  properties: {
    id: { type: "string", pattern: PLUGIN_ID.source },
    name: { type: "string" },
    version: { type: "string", minLength: 1 },
    description: { type: "string", default: "" },
    runtime: { enum: ["node", "stdio", "python"], default: "node" },
    entry: { type: "string", minLength: 1 },
    sdk: { type: "string", minLength: 1 },
    timeout: { type: "integer", minimum: 1, default: DEFAULT_TIMEOUT_MS },
    config: { type: "object", default: { type: "object", properties: {} } },
    autoRetry: { type: "boolean", default: true },
    maxRetries: { type: "integer", minimum: 0, default: 0 },
    env: {
      type: "array",
      items: { type: "string", pattern: ENV_NAME.source },
      default: [],
      description:
        'stdio: environment variables of the bot passed on to the plugin process, by name (e.g. ["WEATHER_API_KEY"]). The process gets only these, the basic ones (PATH, HOME, USER, LANG, LC_*, TZ, temp folders; SYSTEMROOT, COMSPEC, PATHEXT on Windows) and PYTHONIOENCODING/PYTHONUNBUFFERED; any other variable, such as the bot\'s API keys, is not passed.',
    },
    network: {
      type: "boolean",
      default: true,
      description:
        "stdio: false runs an isolated plugin process (plugins.sandbox) without network access; true (default) lets it reach the network, as web search needs.",
    },
  },
};

/**
 * One compile of the manifest schema for all plugins and loads (it has no `$id`); the Ajv of a
 * plugin's load compiles only what its author wrote.
 */
const isManifest = checkOnFirstUse<PluginManifest>(createPluginAjv, manifestSchema);

export type ManifestResult =
  | { ok: true; manifest: PluginManifest }
  | { ok: false; id: string | undefined; problems: string[] };

/**
 * Reads and checks `<dir>/plugin.json`: shape, id pattern, semver `version`, the `sdk`
 * range against this host's SDK version, an entry inside the folder and a config schema
 * that compiles. Every problem is listed, so one look at the status fixes them all.
 */
export async function readManifest(dir: string, ajv: Ajv): Promise<ManifestResult> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(join(dir, "plugin.json"), "utf8"));
  } catch (error) {
    const why = error instanceof SyntaxError ? `is not valid JSON (${error.message})` : "cannot be read";
    return { ok: false, id: undefined, problems: [`plugin.json ${why}`] };
  }
  const rawId = typeof (raw as { id?: unknown })?.id === "string" ? (raw as { id: string }).id : undefined;
  if (!isManifest(raw)) {
    const problems = (isManifest.errors ?? []).map((error) => {
      const where = error.instancePath ? error.instancePath.slice(1).replaceAll("/", ".") : "plugin.json";
      if (error.keyword === "pattern" && where === "id") {
        return `id "${rawId}" must match ${PLUGIN_ID} (lower case letters, digits, _ and -; no dots)`;
      }
      return `${where}: ${error.message}`;
    });
    return { ok: false, id: rawId, problems };
  }
  const manifest = raw;
  manifest.name ||= manifest.id;
  const problems: string[] = [];
  if (!semver.valid(manifest.version)) problems.push(`version "${manifest.version}" is not a semver version`);
  if (manifest.sdk === undefined) {
    if (manifest.runtime === "node")
      problems.push('sdk is required for node plugins (a semver range such as "^1.2.0")');
  } else if (!semver.validRange(manifest.sdk)) {
    problems.push(`sdk "${manifest.sdk}" is not a semver range`);
  } else if (!semver.satisfies(SDK_VERSION, manifest.sdk)) {
    problems.push(`sdk "${manifest.sdk}" does not accept this host's SDK version ${SDK_VERSION}`);
  }
  if (
    manifest.runtime !== "stdio" &&
    (isAbsolute(manifest.entry) || normalize(manifest.entry).startsWith(".."))
  ) {
    problems.push(`entry "${manifest.entry}" must be a path inside the plugin folder`);
  }
  if (manifest.runtime === "stdio" && !manifest.entry.trim()) {
    problems.push('entry must be a command line such as "python3 plugin.py"');
  }
  try {
    ajv.compile(manifest.config);
  } catch (error) {
    problems.push(
      `config schema does not compile: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  return problems.length > 0 ? { ok: false, id: manifest.id, problems } : { ok: true, manifest };
}
