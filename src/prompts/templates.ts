import { readdirSync, readFileSync } from "node:fs";
import { extname, resolve } from "node:path";
import { type KeyPath, problemAt } from "../schema/key-path.ts";
import { projectPath } from "../util/project-files.ts";
import {
  isTemplateName,
  type Placeholder,
  type PromptLanguage,
  TEMPLATE_NAMES,
  TEMPLATE_PLACEHOLDERS,
  type TemplateName,
} from "./catalogue.ts";
import { type CompiledTemplate, compileTemplate, placeholdersIn, templateText } from "./template-syntax.ts";

/** The shipped templates, one folder per language. */
export const SHIPPED_PROMPTS = projectPath("prompts/");

/** The `prompts` config keys. */
export interface PromptSettings {
  language: PromptLanguage;
  dir?: string;
  templates: Record<string, string>;
}

/** The checked templates in use; rendering cannot fail. */
export class PromptTemplates {
  readonly #compiled = new Map<TemplateName, CompiledTemplate>();

  constructor(texts: ReadonlyMap<TemplateName, string>) {
    for (const [name, text] of texts) this.#compiled.set(name, compileTemplate(text));
  }

  render<Name extends TemplateName>(
    name: Name,
    ...values: [Placeholder<Name>] extends [never] ? [] : [Record<Placeholder<Name>, string>]
  ): string {
    return this.#compiled.get(name)!(values[0] ?? {});
  }
}

export type TemplateLoad = { ok: true; templates: PromptTemplates } | { ok: false; problems: string[] };

/** A template's text and where it was written, for problems about it. */
interface Written {
  text: string;
  /** The config key the problem is reported at. */
  key: KeyPath;
  /** Which file, when the key names a folder or a language. */
  file?: string;
}

/**
 * The templates for `settings`: the language's shipped files, then the files of
 * `settings.dir` (relative to `baseDir`, the config file's folder), then the inline texts.
 * Problems are `key.path: reason` lines: an unreadable file or folder, a template name or
 * placeholder the catalogue does not know.
 */
export function loadPromptTemplates(
  settings: PromptSettings,
  baseDir: string,
  shippedRoot = SHIPPED_PROMPTS,
): TemplateLoad {
  const problems: string[] = [];
  const written = new Map<TemplateName, Written>();
  const shippedFolder = resolve(shippedRoot, settings.language);
  for (const name of TEMPLATE_NAMES) {
    const file = resolve(shippedFolder, `${name}.md`);
    const text = readText(file, ["prompts", "language"], problems);
    if (text !== undefined) written.set(name, { text, key: ["prompts", "language"], file });
  }
  if (settings.dir !== undefined) {
    for (const [name, entry] of readOverrideFolder(resolve(baseDir, settings.dir), problems)) {
      written.set(name, entry);
    }
  }
  for (const [name, text] of Object.entries(settings.templates)) {
    const key = ["prompts", "templates", name];
    if (isTemplateName(name)) written.set(name, { text: templateText(text), key });
    else problems.push(problemAt(key, "unknown template (the names are listed in docs/prompts.md)"));
  }
  for (const [name, entry] of written) problems.push(...unknownPlaceholders(name, entry));
  if (problems.length > 0) return { ok: false, problems };
  const texts = new Map([...written].map(([name, entry]) => [name, entry.text]));
  return { ok: true, templates: new PromptTemplates(texts) };
}

/** The `.md` files of an override folder, by template name; other files are not templates. */
function readOverrideFolder(folder: string, problems: string[]): Map<TemplateName, Written> {
  const key = ["prompts", "dir"];
  const found = new Map<TemplateName, Written>();
  let entries: string[];
  try {
    entries = readdirSync(folder);
  } catch (error) {
    problems.push(problemAt(key, `cannot read ${folder} (${errorCode(error)})`));
    return found;
  }
  for (const entry of entries.filter((file) => extname(file) === ".md").sort()) {
    const name = entry.slice(0, -".md".length);
    if (!isTemplateName(name)) {
      problems.push(problemAt(key, `${entry}: unknown template (the names are listed in docs/prompts.md)`));
      continue;
    }
    const file = resolve(folder, entry);
    const text = readText(file, key, problems);
    if (text !== undefined) found.set(name, { text, key, file });
  }
  return found;
}

function readText(file: string, key: KeyPath, problems: string[]): string | undefined {
  try {
    return templateText(readFileSync(file, "utf8"));
  } catch (error) {
    problems.push(problemAt(key, `cannot read ${file} (${errorCode(error)})`));
    return undefined;
  }
}

function unknownPlaceholders(name: TemplateName, entry: Written): string[] {
  const known: readonly string[] = TEMPLATE_PLACEHOLDERS[name];
  const where = entry.file === undefined ? "" : `${entry.file}: `;
  const allowed = known.length > 0 ? `known: ${known.join(", ")}` : "it has no placeholders";
  return placeholdersIn(entry.text)
    .filter((placeholder) => !known.includes(placeholder))
    .map((placeholder) =>
      problemAt(entry.key, `${where}unknown placeholder {{${placeholder}}} in template ${name} (${allowed})`),
    );
}

function errorCode(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? String(error);
}

/** One language's shipped templates as they are (benches and tests); throws if a shipped file is broken. */
export function shippedPromptTemplates(language: PromptLanguage): PromptTemplates {
  const load = loadPromptTemplates({ language, templates: {} }, SHIPPED_PROMPTS);
  if (!load.ok) throw new Error(load.problems.join("\n"));
  return load.templates;
}
