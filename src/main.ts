import { resolve } from "node:path";
import pretty from "pino-pretty";
import { nextSteps } from "./app/next-steps.ts";
import { startApp } from "./app.ts";
import { ConfigError, DEFAULT_CONFIG_FILE, loadConfig } from "./config/load.ts";
import { configJsonSchema } from "./config/schema.ts";
import { createLogger } from "./log/logger.ts";
import { secretPatterns } from "./schema/secret-paths.ts";
import { DatabaseInUseError } from "./store/sqlite/instance-lock.ts";
import { CONFIG_HELP, CONFIG_OPTION, commandLineOrExit } from "./util/command-line.ts";

/** Exit code for a config that cannot be used; scripts and service managers rely on it. */
const EXIT_BAD_CONFIG = 2;
/** Exit within 10 s of SIGINT/SIGTERM, as service managers expect. */
const SHUTDOWN_DEADLINE_MS = 9_500;

const COMMAND_LINE = {
  usage: "usage: npm start -- [--config FILE]",
  help: `${CONFIG_HELP}\n  --help          this text`,
  options: CONFIG_OPTION,
};

async function main(): Promise<void> {
  const { values } = commandLineOrExit(process.argv.slice(2), COMMAND_LINE, "tsumugi");
  let loaded: ReturnType<typeof loadConfig>;
  try {
    loaded = loadConfig({
      file: values.config,
      env: process.env,
      cwd: process.cwd(),
    });
  } catch (error) {
    if (error instanceof ConfigError) {
      for (const problem of error.problems) process.stderr.write(`${problem}\n`);
      process.exit(EXIT_BAD_CONFIG);
    }
    throw error;
  }
  // People at a terminal get readable lines, one per event; pipes and services keep one JSON
  // object a line, unless TSUMUGI_LOG_FORMAT=pretty asks for readable ones there too (pm2, nohup).
  const format = process.env.TSUMUGI_LOG_FORMAT;
  const readable = format === "pretty" || (process.stdout.isTTY && format !== "json");
  const logger = createLogger({
    level: loaded.config.log.level,
    secretPaths: secretPatterns(configJsonSchema),
    ...(readable
      ? { destination: pretty({ translateTime: "SYS:HH:MM:ss", ignore: "pid,hostname", singleLine: true }) }
      : {}),
  });
  for (const warning of loaded.warnings) logger.warn(warning);
  // Running on defaults, the console's first-run setup writes ./tsumugi.yaml, read from then on.
  const configFile = loaded.file ?? resolve(process.cwd(), DEFAULT_CONFIG_FILE);
  const app = await startApp({ config: loaded.config, configFile, logger });
  if (process.stdout.isTTY) process.stdout.write(nextSteps(loaded.config, app.address));

  const shutdown = (signal: string) => {
    logger.info({ signal }, "signal received");
    const deadline = setTimeout(() => {
      logger.error("shutdown took too long; exiting");
      logger.flush();
      process.exit(1);
    }, SHUTDOWN_DEADLINE_MS);
    deadline.unref();
    app.stop().then(
      () => {
        logger.flush();
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, "shutdown failed");
        logger.flush();
        process.exit(1);
      },
    );
  };
  process.once("SIGINT", () => shutdown("SIGINT"));
  process.once("SIGTERM", () => shutdown("SIGTERM"));
}

main().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`tsumugi: ${message}\n`);
  // Another bot on the same database is a set-up to change, as a config that cannot be used.
  process.exit(error instanceof DatabaseInUseError ? EXIT_BAD_CONFIG : 1);
});
