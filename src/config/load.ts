import { existsSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { parseDocument } from "yaml";
import { loadPromptTemplates } from "../prompts/templates.ts";
import { expandEnv, unsetVariableWarnings } from "./expand-env.ts";
import type { TsumugiConfig } from "./schema.ts";
import { validateConfig } from "./validate.ts";

/** A config that cannot be used; `problems` holds one `key.path: reason` line each. */
export class ConfigError extends Error {
  readonly problems: string[];

  constructor(problems: string[], file?: string) {
    super(
      `invalid configuration${file ? ` in ${file}` : ""}:\n${problems.map((line) => `  ${line}`).join("\n")}`,
    );
    this.name = "ConfigError";
    this.problems = problems;
  }
}

export interface LoadConfigOptions {
  /** From `--config FILE`; wins over `TSUMUGI_CONFIG`. Relative to `cwd`. */
  file?: string;
  /** Source of `TSUMUGI_CONFIG` and of `${VAR}` expansion. */
  env: NodeJS.ProcessEnv;
  cwd: string;
}

export interface LoadedConfig {
  config: TsumugiConfig;
  /** Absolute path of the file read; absent when running on defaults alone. */
  file?: string;
  /** What is usable but likely a mistake (an unset `${VAR}`), one line each, for the log and doctor. */
  warnings: string[];
}

export const DEFAULT_CONFIG_FILE = "tsumugi.yaml";

/**
 * Reads the config: an explicitly named file must exist; otherwise `./tsumugi.yaml` is read
 * when present; otherwise every key takes its default. Throws `ConfigError` on any problem.
 */
export function loadConfig(options: LoadConfigOptions): LoadedConfig {
  const file = chooseConfigFile(options);
  const raw = file === undefined ? {} : parseYamlFile(file);
  const written = withoutNullValues(raw);
  const input = expandEnv(written, options.env);
  const result = validateConfig(input);
  if (!result.ok) throw new ConfigError(result.problems, file);
  // Templates are read and checked here too, so a bad one stops start-up and a reload alike.
  const prompts = loadPromptTemplates(result.config.prompts, promptsBaseDir(file, options.cwd));
  if (!prompts.ok) throw new ConfigError(prompts.problems, file);
  const warnings = unsetVariableWarnings(written, options.env);
  return file === undefined ? { config: result.config, warnings } : { config: result.config, file, warnings };
}

/** What `prompts.dir` is relative to: the config file's folder, else the working directory. */
export function promptsBaseDir(file: string | undefined, cwd: string): string {
  return file === undefined ? cwd : dirname(file);
}

function chooseConfigFile({ file, env, cwd }: LoadConfigOptions): string | undefined {
  const explicit = file ?? (env.TSUMUGI_CONFIG || undefined);
  if (explicit !== undefined) {
    const path = resolve(cwd, explicit);
    if (!existsSync(path)) throw new ConfigError([`${path}: config file not found`]);
    return path;
  }
  const fallback = resolve(cwd, DEFAULT_CONFIG_FILE);
  return existsSync(fallback) ? fallback : undefined;
}

function parseYamlFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new ConfigError([
      `${path}: cannot read (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
    ]);
  }
  let document: ReturnType<typeof parseDocument>;
  try {
    document = parseDocument(text);
  } catch (error) {
    // The parser recurses per level: a few thousand `[` overflow its stack.
    const reason = error instanceof RangeError ? "nested too deeply" : (error as Error).message;
    throw new ConfigError([`${path}: ${reason}`], path);
  }
  // Later errors are usually knock-on effects of the first, so only that one is reported.
  const [first] = document.errors;
  if (first) {
    const position = first.linePos?.[0];
    const where = position ? ` line ${position.line}, column ${position.col}` : "";
    const reason = first.message.split(" at line ")[0] ?? first.message;
    throw new ConfigError([`${path}${where}: ${reason}`], path);
  }
  let value: unknown;
  try {
    value = document.toJS();
  } catch (error) {
    // e.g. an alias whose anchor does not exist (`name: *x`): still a problem of the file.
    throw new ConfigError([`${path}: ${(error as Error).message}`], path);
  }
  if (containsCycle(value)) throw new ConfigError([`${path}: an alias is used inside its own anchor`], path);
  return value;
}

/** `a: &a [*a]` builds a cycle, which every later step (defaults, env expansion, checks) would walk forever. */
function containsCycle(value: unknown, ancestors = new Set<object>()): boolean {
  if (typeof value !== "object" || value === null) return false;
  if (ancestors.has(value)) return true;
  ancestors.add(value);
  const found = Object.values(value).some((child) => containsCycle(child, ancestors));
  ancestors.delete(value);
  return found;
}

/**
 * A key written with nothing after it (`chat:` with every child commented out) means
 * "use the default", not "null".
 */
function withoutNullValues(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNullValues);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, item]) => item !== null)
        .map(([key, item]) => [key, withoutNullValues(item)]),
    );
  }
  return value;
}
