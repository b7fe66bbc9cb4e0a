// Checks a deployment before (or while) it runs: `npm run doctor -- [--config FILE]`.
//
// Prints one line per check (✓ fine, ✗ a problem with what to do about it, ! likely a mistake
// though usable, such as an unset ${VAR}); exits 0 when everything answers, 1 when something
// needs fixing.
import { ConfigError, loadConfig } from "../src/config/load.ts";
import { runChecks } from "../src/doctor/checks.ts";
import { createLogger } from "../src/log/logger.ts";
import { CONFIG_HELP, CONFIG_OPTION, commandLineOrExit } from "../src/util/command-line.ts";

/** How long each probe (a port, a token endpoint, a model) may take. */
const PROBE_TIMEOUT_MS = 15_000;

const COMMAND_LINE = {
  usage: "usage: npm run doctor -- [--config FILE]",
  help: CONFIG_HELP,
  options: CONFIG_OPTION,
};

async function main(argv: string[]): Promise<number> {
  const { values } = commandLineOrExit(argv, COMMAND_LINE, "doctor");
  let loaded: ReturnType<typeof loadConfig>;
  try {
    loaded = loadConfig({ file: values.config, env: process.env, cwd: process.cwd() });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    for (const problem of error.problems) console.log(`✗ ${problem}`);
    return 1;
  }
  for (const warning of loaded.warnings) console.log(`! ${warning}`);
  const findings = await runChecks(loaded.config, {
    timeoutMs: PROBE_TIMEOUT_MS,
    logger: createLogger({ level: "silent" }),
  });
  for (const finding of findings) console.log(`${finding.ok ? "✓" : "✗"} ${finding.line}`);
  const problems = findings.filter((finding) => !finding.ok).length;
  console.log(problems === 0 ? "everything answers" : `${problems} problem(s) to fix`);
  return problems === 0 ? 0 : 1;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.log(`✗ doctor failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
