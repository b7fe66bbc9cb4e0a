// Plugins from npm packages: `npm run plugin -- install|update|uninstall|list [SPEC|ID]
// [--allow-scripts] [--yes] [--config FILE]`. SPEC is what npm accepts: a package name (from the
// registry the operator's npm uses), a git URL, a local .tgz or folder. The manifest is shown
// before anything is installed. A running bot loads the change from its plugin folder itself.
import { createInterface } from "node:readline/promises";
import { ConfigError, loadConfig, parseCliArgs } from "../src/config/load.ts";
import { PluginInstaller, type PluginPreview } from "../src/plugins/install/plugin-installer.ts";

const USAGE = `usage: npm run plugin -- install <spec> [--allow-scripts] [--yes]
       npm run plugin -- update <id> [<spec>] [--allow-scripts] [--yes]
       npm run plugin -- uninstall <id>
       npm run plugin -- list
options: --config FILE (default ./tsumugi.yaml), --allow-scripts (run the package's install scripts),
         --yes (install without asking; needed when not run from a terminal)`;

const FLAGS = new Set(["--allow-scripts", "--yes"]);

async function main(argv: string[]): Promise<number> {
  const words = argv.filter(
    (word, index) => !word.startsWith("--config") && argv[index - 1] !== "--config" && !FLAGS.has(word),
  );
  const unknown = words.find((word) => word.startsWith("-"));
  const [action, target, spec] = words;
  // How many words each action takes, itself included: at least, at most.
  const arity: Record<string, [number, number]> = {
    install: [2, 2],
    update: [2, 3],
    uninstall: [2, 2],
    list: [1, 1],
  };
  const [least, most] = (action === undefined ? undefined : arity[action]) ?? [Number.POSITIVE_INFINITY, 0];
  if (unknown || words.length < least || words.length > most) {
    console.error(unknown ? `unknown option ${unknown}\n${USAGE}` : USAGE);
    return 2;
  }
  const { config } = loadConfig({
    file: parseCliArgs(argv).configFile,
    env: process.env,
    cwd: process.cwd(),
  });
  const installer = new PluginInstaller({ settings: () => config.plugins, cwd: process.cwd() });
  const allowScripts = argv.includes("--allow-scripts");
  const confirmed = (preview: PluginPreview) => confirm(preview, argv.includes("--yes"), allowScripts);

  if (action === "list") {
    for (const plugin of await installer.list()) {
      const source = plugin.installed ? `from ${plugin.installed.spec}` : "folder";
      console.log(`${plugin.id}\t${plugin.version}\t${plugin.runtime}\t${source}\t${plugin.dir}`);
    }
    return 0;
  }
  if (action === "uninstall") {
    await installer.uninstall(target!);
    console.log(`uninstalled ${target}`);
    return 0;
  }
  if (action === "install") {
    const preview = await installer.preview(target!);
    if (!(await confirmed(preview))) return 1;
    const installed = await installer.install(target!, { allowScripts, expect: preview });
    console.log(`installed ${installed.id} ${installed.version}`);
    return 0;
  }
  const installed = (await installer.list()).find((plugin) => plugin.id === target)?.installed;
  if (!installed) {
    console.error(`plugin "${target}" was not installed from a package; nothing to update`);
    return 1;
  }
  const preview = await installer.preview(spec ?? (await installer.installedFrom(target!)));
  if (!(await confirmed(preview))) return 1;
  const updated = await installer.update(target!, { allowScripts, expect: preview, ...(spec && { spec }) });
  console.log(`updated ${updated.id} to ${updated.version}`);
  return 0;
}

/** Prints what the package is and asks for, then the operator's answer (or --yes). */
async function confirm(preview: PluginPreview, yes: boolean, allowScripts: boolean): Promise<boolean> {
  console.log(describePreview(preview, allowScripts).join("\n"));
  if (yes) return true;
  if (!process.stdin.isTTY) {
    console.error("not installed: add --yes to install without a terminal to ask in");
    return false;
  }
  const prompt = createInterface({ input: process.stdin, output: process.stdout });
  const answer = await prompt.question("Install? [y/N] ");
  prompt.close();
  return /^y(es)?$/i.test(answer.trim());
}

function describePreview(preview: PluginPreview, allowScripts: boolean): string[] {
  const scripts = preview.installScripts.length
    ? `${preview.installScripts.join(", ")} (${allowScripts ? "will run: --allow-scripts" : "skipped: installed with --ignore-scripts"})`
    : "none";
  return [
    `${preview.id} ${preview.version} — ${preview.name} (package ${preview.packageName})`,
    ...(preview.description ? [`  ${preview.description}`] : []),
    `  runtime:      ${preview.runtime} (entry ${preview.entry})${preview.sdk ? `, sdk ${preview.sdk}` : ""}`,
    `  runs:         ${preview.launch}`,
    `  environment:  ${preview.env.length ? preview.env.join(", ") : "none asked for"}`,
    `  network:      ${preview.runtime === "node" ? "as the bot" : preview.network ? "yes" : "no"}`,
    `  dependencies: ${preview.dependencies.length ? preview.dependencies.join(", ") : "none"}`,
    `  scripts:      ${scripts}`,
    ...(preview.installedVersion ? [`  installed now: ${preview.installedVersion}`] : []),
  ];
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof ConfigError) for (const problem of error.problems) console.error(problem);
    else console.error(error instanceof Error ? error.message : String(error));
    process.exit(error instanceof ConfigError ? 2 : 1);
  },
);
