// Plugins from npm packages: `npm run plugin -- install|update|uninstall|list [SPEC|ID]
// [--allow-scripts] [--yes] [--config FILE]`. SPEC is what npm accepts: a package name (from the
// registry the operator's npm uses), a git URL, a local .tgz or folder. The manifest is shown
// before anything is installed. A running bot loads the change from its plugin folder itself.
import { createInterface } from "node:readline/promises";
import { ConfigError, loadConfig } from "../src/config/load.ts";
import { PluginInstaller, type PluginPreview } from "../src/plugins/install/plugin-installer.ts";
import { CONFIG_HELP, CONFIG_OPTION, commandLineOrExit } from "../src/util/command-line.ts";

const COMMAND_LINE = {
  usage: "usage: npm run plugin -- install <spec> | update <id> [<spec>] | uninstall <id> | list [options]",
  help: [
    "  install <spec>          a package name, git URL, .tgz or folder, as npm accepts it",
    "  update <id> [<spec>]    the installed plugin <id>, from its own spec or <spec>",
    "  uninstall <id>",
    "  list",
    CONFIG_HELP,
    "  --allow-scripts         run the package's install scripts",
    "  --yes                   install without asking (needed when not run from a terminal)",
  ].join("\n"),
  options: { ...CONFIG_OPTION, "allow-scripts": { type: "boolean" }, yes: { type: "boolean" } },
  commands: { install: [1, 1], update: [1, 2], uninstall: [1, 1], list: [0, 0] },
} as const;

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = commandLineOrExit(argv, COMMAND_LINE, "plugin");
  const [action, target, spec] = positionals;
  const { config } = loadConfig({
    file: values.config,
    env: process.env,
    cwd: process.cwd(),
  });
  const installer = new PluginInstaller({ settings: () => config.plugins, cwd: process.cwd() });
  const allowScripts = values["allow-scripts"] === true;
  const confirmed = (preview: PluginPreview) => confirm(preview, values.yes === true, allowScripts);

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
