// Checks a deployment before (or while) it runs: `npm run doctor -- [--config FILE]`.
//
// Prints one line per check (✓ fine, ✗ a problem with what to do about it); exits 0 when
// everything answers, 1 when something needs fixing.
import { ConfigError, loadConfig, parseCliArgs } from "../src/config/load.ts";
import { runChecks } from "../src/doctor/checks.ts";
import { createLogger } from "../src/log/logger.ts";

/** How long each probe (a port, a token endpoint, a model) may take. */
const PROBE_TIMEOUT_MS = 15_000;

async function main(argv: string[]): Promise<number> {
  let config: ReturnType<typeof loadConfig>["config"];
  try {
    config = loadConfig({ file: parseCliArgs(argv).configFile, env: process.env, cwd: process.cwd() }).config;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    for (const problem of error.problems) console.log(`✗ ${problem}`);
    return 1;
  }
  const findings = await runChecks(config, {
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
