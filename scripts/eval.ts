// Behaviour evaluation: `npm run eval -- [--config FILE]... [--scripted] [--json OUT] [--parallel N] [SCENARIO…]`.
//
// Plays each scenario file (default: the folder eval/) against the real bot, as `npm start`
// runs it, on a throwaway data folder with the models of each config given (else
// $TSUMUGI_CONFIG or ./tsumugi.yaml; `--scripted`: the project's scripted model), prints a
// progress line per scenario, then the table (a column per config) and totals; `--json OUT`
// writes the same as JSON. Exit status: 0 all passed, 1 a scenario failed, 2 unusable input.
// `--replay SESSION` instead replays a stored chat through each --config (scripts/eval/replay-run.ts):
// exit 0 whatever the candidates said, 2 when the input is unusable.
// Scenario format, replay and figures: docs/eval.md.
import { existsSync, writeFileSync } from "node:fs";
import { DEFAULT_CONFIG_FILE, loadConfig } from "../src/config/load.ts";
import { isPostgresUrl, sqliteFileOf } from "../src/store/open-store.ts";
import { commandLineOrExit, type ParsedCommandLine } from "../src/util/command-line.ts";
import { errorMessage, isRecord } from "../src/util/values.ts";
import { buildServer, serverBuildIsStale } from "./build-server.ts";
import { type ScenarioResult, scoreScenario } from "./eval/checks.ts";
import { startEvalBot } from "./eval/eval-bot.ts";
import { playScenario, scenarioIds } from "./eval/play.ts";
import type { ReplaySpeed } from "./eval/replay.ts";
import { type ReplayOptions, runReplay } from "./eval/replay-run.ts";
import { evalReport, progressLine, reportTable } from "./eval/report.ts";
import { loadScenario, type Scenario, ScenarioError, scenarioFiles } from "./eval/scenario.ts";
import { type ScenarioScript, scriptedModelConfig, startScriptedModel } from "./eval/scripted-model.ts";

const COMMAND_LINE = {
  usage:
    "usage: npm run eval -- [--config FILE]... [--scripted] [--json OUT] [--parallel N] [SCENARIO_FILE_OR_FOLDER…]" +
    " | --replay SESSION [--db FILE] [--from TIME] [--to TIME] [--speed fast|N] --config FILE [--config FILE] [--json OUT] [--clean]",
  help: [
    "  --config FILE   a config whose models are evaluated (repeatable: a column each)",
    "  --scripted      the project's scripted model (a column of its own)",
    "  --json OUT      also write the report as JSON to OUT",
    "  --parallel N    scenarios played at once per bot (default 1)",
    "",
    "Replay a stored chat through candidate configs (read-only; the candidates' sends go nowhere):",
    "  --replay SESSION  the chat: its session id (onebot:<self>:group:<group>) or a group id",
    "  --db FILE         the SQLite database to read (a copy or a backup; default: the storage of",
    "                    $TSUMUGI_CONFIG, else ./tsumugi.yaml); opened read-only",
    "  --from / --to     the window: an ISO time (2026-12-01T20:00+08:00) or Unix ms (default: all)",
    "  --speed fast|N    fast (default): people's gaps up to 3 s kept, longer ones only until the bot is",
    "                    done; N: every gap divided by N (60: a minute in a second)",
    "  --config FILE     a candidate config (once or twice: a column each)",
    "  --clean           keep no report in replays/ next to the first --config",
  ].join("\n"),
  options: {
    config: { type: "string", multiple: true },
    scripted: { type: "boolean" },
    json: { type: "string" },
    parallel: { type: "string" },
    replay: { type: "string" },
    db: { type: "string" },
    from: { type: "string" },
    to: { type: "string" },
    speed: { type: "string" },
    clean: { type: "boolean" },
  },
  positionals: { max: Number.POSITIVE_INFINITY },
} as const;
const EXIT_FAILED = 1;
const EXIT_UNUSABLE = 2;

/** Where a column's bot gets its models: an operator's config file, or the scripted model. */
type ModelSource = { label: string; configFile: string } | { label: "scripted" };

class UsageError extends Error {}

async function main(argv: string[]): Promise<number> {
  const parsed = commandLineOrExit(argv, COMMAND_LINE, "eval");
  if (parsed.values.replay !== undefined) return runReplay(replayOptions(parsed));
  const options = parseOptions(parsed);
  const scenarios = options.paths.flatMap((path) => scenarioFiles([path])).map(loadScenario);
  const duplicate = scenarios.find(
    (scenario, index) => scenarios.findIndex((s) => s.name === scenario.name) !== index,
  );
  if (duplicate)
    throw new ScenarioError(`${duplicate.file}: name "${duplicate.name}" is used by another scenario`);
  if (scenarios.length === 0) throw new UsageError(`no scenario files in ${options.paths.join(", ")}`);
  if (serverBuildIsStale()) {
    process.stdout.write("building the server (dist/server)…\n");
    await buildServer();
  }

  /** The scripts of the running scenarios, by the wire id of each of their users. */
  const scripts = new Map<string, ScenarioScript>();
  const llm = options.sources.some((source) => source.label === "scripted")
    ? await startScriptedModel((userId) => scripts.get(userId))
    : undefined;
  const results: ScenarioResult[] = [];
  const total = scenarios.length * options.sources.length;
  const runs = options.sources.flatMap((source) =>
    byScenarioConfig(scenarios).map((batch) => ({ source, batch })),
  );
  // Every bot starts at once and each stops once its scenarios are done, so their start-ups and
  // shutdowns overlap with playing; the scenarios themselves are played one bot after the other.
  const bots = runs.map(({ source, batch }) =>
    startEvalBot({
      ...("configFile" in source ? { configFile: source.configFile } : {}),
      base: llm ? scriptedModelConfig(llm) : {},
      scenarioConfig: sharedConfig(batch),
    }),
  );
  const stopped: Array<Promise<void>> = [];
  try {
    for (const [position, { source, batch }] of runs.entries()) {
      const bot = await bots[position];
      if (!bot) continue;
      try {
        await eachConcurrently(batch, options.parallel, async ({ scenario, index }) => {
          if (source.label === "scripted") registerScript(scripts, scenario, index);
          const result = scoreScenario(scenario, source.label, await playScenario(bot, scenario, index));
          results.push(result);
          process.stdout.write(`${progressLine(result, results.length, total)}\n`);
        });
      } finally {
        stopped.push(bot.stop());
      }
    }
  } finally {
    // A bot whose turn never came (an earlier one failed) is stopped too; stop() runs once.
    await Promise.allSettled(bots.map((bot) => bot.then((started) => started.stop())));
    await Promise.allSettled(stopped);
    await llm?.close();
  }
  const order = (result: ScenarioResult) => scenarios.findIndex((scenario) => scenario.name === result.name);
  results.sort((a, b) => order(a) - order(b));
  const report = evalReport(
    options.sources.map((source) => source.label),
    results,
  );
  process.stdout.write(`\n${reportTable(report)}\n`);
  if (options.json) writeFileSync(options.json, `${JSON.stringify(report, null, 2)}\n`);
  return report.failed > 0 ? EXIT_FAILED : 0;
}

type ParsedEval = ParsedCommandLine<typeof COMMAND_LINE.options>;

function parseOptions({ values, positionals }: ParsedEval) {
  const replayOnly = REPLAY_ONLY.find((name) => values[name] !== undefined);
  if (replayOnly) throw new UsageError(`--${replayOnly} is for --replay`);
  const parallel = Number(values.parallel ?? "1");
  if (!Number.isInteger(parallel) || parallel < 1)
    throw new UsageError("--parallel: must be a whole number ≥ 1");
  const sources: ModelSource[] = (values.config ?? []).map((file) => ({ label: file, configFile: file }));
  if (values.scripted) sources.push({ label: "scripted" });
  if (sources.length === 0) {
    const file = process.env.TSUMUGI_CONFIG || DEFAULT_CONFIG_FILE;
    if (!existsSync(file))
      throw new UsageError(`no model to evaluate: give --config FILE or --scripted (${file} does not exist)`);
    sources.push({ label: file, configFile: file });
  }
  const missing = sources.find((source) => "configFile" in source && !existsSync(source.configFile));
  if (missing) throw new UsageError(`${missing.label}: no such config file`);
  return { sources, parallel, json: values.json, paths: positionals.length > 0 ? positionals : ["eval"] };
}

const REPLAY_ONLY = ["db", "from", "to", "speed", "clean"] as const;
/** The most candidates a replay puts beside the live column. */
const MAX_CANDIDATES = 2;

function replayOptions({ values, positionals }: ParsedEval): ReplayOptions {
  if (positionals.length > 0) throw new UsageError(`--replay takes no scenario files ("${positionals[0]}")`);
  if (values.scripted)
    throw new UsageError("--scripted is for scenarios; a replay runs each --config's own models");
  if (values.parallel !== undefined) throw new UsageError("--parallel is for scenarios");
  const configs = values.config ?? [];
  if (configs.length === 0) throw new UsageError("--replay needs a candidate: --config FILE");
  if (configs.length > MAX_CANDIDATES)
    throw new UsageError(`--replay takes at most ${MAX_CANDIDATES} --config values (a column each)`);
  const missing = configs.find((file) => !existsSync(file));
  if (missing) throw new UsageError(`${missing}: no such config file`);
  const from = values.from === undefined ? undefined : timeOption("from", values.from);
  const to = values.to === undefined ? undefined : timeOption("to", values.to);
  if (from !== undefined && to !== undefined && from > to) throw new UsageError("--from is after --to");
  return {
    session: values.replay ?? "",
    db: values.db ?? liveDatabase(),
    configs,
    ...(from !== undefined && { from }),
    ...(to !== undefined && { to }),
    speed: speedOption(values.speed ?? "fast"),
    ...(values.json !== undefined && { json: values.json }),
    clean: values.clean === true,
  };
}

/** An ISO time or Unix milliseconds. */
function timeOption(name: string, value: string): number {
  const time = /^\d+$/.test(value) ? Number(value) : Date.parse(value);
  if (!Number.isFinite(time))
    throw new UsageError(
      `--${name}: "${value}" is not a time (an ISO time like 2026-12-01T20:00+08:00, or Unix ms)`,
    );
  return time;
}

function speedOption(value: string): ReplaySpeed {
  if (value === "fast") return "fast";
  const factor = Number(value);
  if (!Number.isFinite(factor) || factor < 1 || factor > 1_000_000)
    throw new UsageError(`--speed: "${value}" is neither fast nor a number from 1 to 1000000`);
  return factor;
}

/** The database of the operator's config ($TSUMUGI_CONFIG, else ./tsumugi.yaml): what the live bot writes. */
function liveDatabase(): string {
  const file = process.env.TSUMUGI_CONFIG || DEFAULT_CONFIG_FILE;
  if (!existsSync(file)) throw new UsageError(`no database to read: give --db FILE (${file} does not exist)`);
  const { config } = loadConfig({ file, env: process.env, cwd: process.cwd() });
  if (isPostgresUrl(config.storage.url))
    throw new UsageError(
      `${file}: storage is PostgreSQL; give --db with a SQLite copy or backup (npm run backup)`,
    );
  return sqliteFileOf(config.storage.url);
}

/** Scenarios with the same `config` share one bot (each in chats of its own), in file order. */
function byScenarioConfig(scenarios: Scenario[]): Array<Array<{ scenario: Scenario; index: number }>> {
  const batches = new Map<string, Array<{ scenario: Scenario; index: number }>>();
  scenarios.forEach((scenario, index) => {
    const key = JSON.stringify(scenario.config);
    batches.set(key, [...(batches.get(key) ?? []), { scenario, index }]);
  });
  return [...batches.values()];
}

/**
 * The `config` the batch's scenarios share, with `chat.otherBots` (user ids as the files write
 * them) naming the wire ids of those users in every scenario of the batch.
 */
function sharedConfig(batch: Array<{ scenario: Scenario; index: number }>): Record<string, unknown> {
  const config = batch[0]?.scenario.config ?? {};
  const chat = config.chat;
  if (!isRecord(chat) || !Array.isArray(chat.otherBots)) return config;
  const otherBots = chat.otherBots.map(String);
  const wireIds = batch.flatMap(({ index }) => otherBots.map((id) => scenarioIds(index).user(id)));
  return { ...config, chat: { ...chat, otherBots: wireIds } };
}

/** The scenario's `script` (a fresh copy of its replies), under each of its users' wire ids. */
function registerScript(scripts: Map<string, ScenarioScript>, scenario: Scenario, index: number): void {
  const script = { replies: [...scenario.script.replies], quote: scenario.script.quote };
  const ids = scenarioIds(index);
  for (const step of scenario.steps) {
    if (step.kind === "message") scripts.set(ids.user(step.user), script);
    if (step.kind === "poke") scripts.set(ids.user(step.poke), script);
  }
}

async function eachConcurrently<T>(
  items: T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    const usage = error instanceof UsageError ? ` — ${COMMAND_LINE.usage}` : "";
    process.stderr.write(`eval: ${errorMessage(error)}${usage}\n`);
    process.exit(EXIT_UNUSABLE);
  },
);
