// Scaffolds a plugin: `npx tsumugi new-plugin <id> [--lang ts|python|stdio] [--dir FOLDER]`
// (in this repository: `npm run new-plugin -- <id> …`). The folder gets the plugin, a package.json
// and a test that runs it in a real bot through tsumugi/testing (`npm test` there).
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { PLUGIN_ID } from "../src/schema/formats.ts";
import { EXIT_USAGE, helpText, parseCommandLine, UsageError, usageLine } from "../src/util/command-line.ts";
import { projectPath } from "../src/util/project-files.ts";

const LANGUAGES = ["ts", "python", "stdio"] as const;
type Language = (typeof LANGUAGES)[number];

/** Template files and where they go in the new plugin's folder. */
const COMMON_FILES: Record<string, string> = {
  "package.json": "package.json",
  gitignore: ".gitignore",
  "plugin.test.mjs": "test/plugin.test.mjs",
};

export const NEW_PLUGIN_COMMAND_LINE = {
  usage: "usage: tsumugi new-plugin <id> [--lang ts|python|stdio] [--dir FOLDER]",
  help: [
    "  <id>            the plugin's id: lower case letters, digits, _ and -",
    "  --lang LANG     ts (default), python or stdio (any language over stdin/stdout)",
    "  --dir FOLDER    where to create it (default: ./<id>)",
  ].join("\n"),
  options: { lang: { type: "string" }, dir: { type: "string" } },
  positionals: { min: 1, max: 1 },
} as const;

export function newPlugin(argv: string[], cwd: string): number {
  let options: ReturnType<typeof parseOptions>;
  try {
    options = parseOptions(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(usageLine("new-plugin", error, NEW_PLUGIN_COMMAND_LINE));
    return EXIT_USAGE;
  }
  if (options === "help") {
    process.stdout.write(helpText(NEW_PLUGIN_COMMAND_LINE));
    return 0;
  }
  const { id, language } = options;
  const folder = resolve(cwd, options.dir ?? id);
  if (existsSync(folder) && readdirSync(folder).length > 0) {
    console.error(`${folder} exists and is not empty`);
    return 1;
  }
  const tsumugiRoot = projectPath();
  const fill = (text: string) => text.replaceAll("{{id}}", id).replaceAll("{{tsumugi}}", tsumugiRoot);
  const templates = projectPath("kit", "templates");
  const write = (from: string, to: string) => {
    mkdirSync(resolve(folder, to, ".."), { recursive: true });
    writeFileSync(join(folder, to), fill(readFileSync(from, "utf8")));
  };
  for (const file of readdirSync(join(templates, language))) write(join(templates, language, file), file);
  for (const [from, to] of Object.entries(COMMON_FILES)) write(join(templates, "common", from), to);
  // What `npm install` makes of the file: dependency on this installation, so `npm test` runs at once.
  mkdirSync(join(folder, "node_modules"), { recursive: true });
  symlinkSync(tsumugiRoot, join(folder, "node_modules", "tsumugi"), "dir");
  console.log(`created the ${language} plugin "${id}" in ${folder}`);
  console.log(`  cd ${folder} && npm test`);
  console.log("  install it into a bot: npm run plugin -- install <that folder or its npm pack .tgz>");
  return 0;
}

function parseOptions(argv: string[]): { id: string; language: Language; dir?: string } | "help" {
  const parsed = parseCommandLine(argv, NEW_PLUGIN_COMMAND_LINE);
  if (parsed === "help") return parsed;
  const { values, positionals } = parsed;
  const id = positionals[0]!;
  const language = values.lang ?? "ts";
  if (!(LANGUAGES as readonly string[]).includes(language))
    throw new UsageError(`--lang must be one of ${LANGUAGES.join(", ")}`);
  if (!PLUGIN_ID.test(id))
    throw new UsageError(`the id "${id}" must match ${PLUGIN_ID} (lower case letters, digits, _ and -)`);
  return { id, language: language as Language, ...(values.dir && { dir: values.dir }) };
}
