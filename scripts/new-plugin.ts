// Scaffolds a plugin: `npx tsumugi new-plugin <id> [--lang ts|python|stdio] [--dir FOLDER]`
// (in this repository: `npm run new-plugin -- <id> …`). The folder gets the plugin, a package.json
// and a test that runs it in a real bot through tsumugi/testing (`npm test` there).
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { PLUGIN_ID } from "../src/schema/formats.ts";
import { projectPath } from "../src/util/project-files.ts";

const USAGE = "usage: tsumugi new-plugin <id> [--lang ts|python|stdio] [--dir FOLDER]";
const LANGUAGES = ["ts", "python", "stdio"] as const;
type Language = (typeof LANGUAGES)[number];

/** Template files and where they go in the new plugin's folder. */
const COMMON_FILES: Record<string, string> = {
  "package.json": "package.json",
  gitignore: ".gitignore",
  "plugin.test.mjs": "test/plugin.test.mjs",
};

export function newPlugin(argv: string[], cwd: string): number {
  const options = parseOptions(argv);
  if (typeof options === "string") {
    console.error(`${options}\n${USAGE}`);
    return 2;
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

function parseOptions(argv: string[]): { id: string; language: Language; dir?: string } | string {
  const words: string[] = [];
  let language: Language = "ts";
  let dir: string | undefined;
  for (let index = 0; index < argv.length; index++) {
    const word = argv[index]!;
    if (word === "--lang" || word === "--dir") {
      const value = argv[++index];
      if (!value) return `${word} needs a value`;
      if (word === "--dir") dir = value;
      else if ((LANGUAGES as readonly string[]).includes(value)) language = value as Language;
      else return `--lang must be one of ${LANGUAGES.join(", ")}`;
    } else if (word.startsWith("-")) {
      return `unknown option ${word}`;
    } else {
      words.push(word);
    }
  }
  const [id] = words;
  if (words.length !== 1 || !id) return "give one plugin id";
  if (!PLUGIN_ID.test(id))
    return `the id "${id}" must match ${PLUGIN_ID} (lower case letters, digits, _ and -)`;
  return { id, language, ...(dir && { dir }) };
}
