// A consistent copy of the database while the bot runs: `npm run backup -- [FILE] [--config FILE]`.
//
// Uses SQLite's online backup API (never `cp`: the copy would miss what is still in the -wal
// file). Without FILE the copy goes to <data folder>/backups/tsumugi-<date>T<time>.db.
import { join, resolve } from "node:path";
import { ConfigError, loadConfig } from "../src/config/load.ts";
import { dataDirectory } from "../src/models/data-directory.ts";
import { sqliteFileOf } from "../src/store/open-store.ts";
import { backupDatabase } from "../src/store/sqlite/backup.ts";
import { IN_MEMORY } from "../src/store/sqlite/database.ts";
import { CONFIG_HELP, CONFIG_OPTION, commandLineOrExit } from "../src/util/command-line.ts";

const COMMAND_LINE = {
  usage: "usage: npm run backup -- [FILE] [--config FILE]",
  help: `  FILE            where the copy goes (default: <data folder>/backups/tsumugi-<date>T<time>.db)\n${CONFIG_HELP}`,
  options: CONFIG_OPTION,
  positionals: { max: 1 },
} as const;

async function main(argv: string[]): Promise<number> {
  const { values, positionals: words } = commandLineOrExit(argv, COMMAND_LINE, "backup");
  const { config } = loadConfig({
    file: values.config,
    env: process.env,
    cwd: process.cwd(),
  });
  const source = sqliteFileOf(config.storage.url);
  if (source === IN_MEMORY) {
    console.error("storage.url is sqlite::memory:, which has nothing on disk to back up");
    return 1;
  }
  const stamp = new Date().toISOString().replace(/:/g, "-").replace(/\..*$/, "");
  const target = words[0]
    ? resolve(words[0])
    : join(dataDirectory(config.storage.url), "backups", `tsumugi-${stamp}.db`);
  const { pages } = await backupDatabase(source, target);
  console.log(`backed up ${source} to ${target} (${pages} pages)`);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof ConfigError) for (const problem of error.problems) console.error(problem);
    else console.error(error instanceof Error ? error.message : String(error));
    process.exit(error instanceof ConfigError ? 2 : 1);
  },
);
