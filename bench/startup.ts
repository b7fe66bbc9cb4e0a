/**
 * Start-up and idle footprint (issue #15): the compiled bot (`npm start`: node
 * dist/server/main.mjs) started RUNS times on a temp data folder with the default plugins, from
 * spawn to the first 200 from /healthz, then the resident memory of its whole process tree
 * (the bot and its plugin processes) once idle. Measured in the same run: the old way
 * (`tsx src/main.ts`, a transpiler at every start) and a bare `node -e` process as baseline.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildServer, serverBuildIsStale } from "../scripts/build-server.ts";
import { exited, npmStartCommand, sleep, startBotChild } from "./bot-child.ts";
import { median, round } from "./child.ts";
import { treeRss } from "./process-tree.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const RUNS = 5;
/** After /healthz answers: time for plugin processes to start and start-up garbage to settle. */
const IDLE_MS = 3_000;

const COMMANDS = {
  compiled: npmStartCommand(),
  tsx: [join(ROOT, "node_modules/.bin/tsx"), join(ROOT, "src/main.ts")],
};

/** One start: milliseconds to a healthy /healthz, then the idle tree's RSS. */
async function startOnce(command: string[]): Promise<{ readyMs: number; rssMb: number; processes: number }> {
  const bot = await startBotChild(command);
  try {
    await sleep(IDLE_MS);
    const { mb, processes } = treeRss(bot.child.pid!);
    return { readyMs: bot.readyMs, rssMb: mb, processes };
  } finally {
    await bot.stop();
  }
}

async function baselineRss(): Promise<number> {
  const child = spawn(process.execPath, ["-e", "setInterval(()=>{},1e9)"], { stdio: "ignore" });
  await sleep(1_000);
  const { mb } = treeRss(child.pid!);
  child.kill();
  await exited(child);
  return mb;
}

async function measure(command: string[]) {
  const runs = [];
  for (let run = 0; run < RUNS; run++) runs.push(await startOnce(command));
  return {
    readyMsMedian: Math.round(median(runs.map((r) => r.readyMs))),
    readyMsRuns: runs.map((r) => Math.round(r.readyMs)),
    idleTreeRssMbMedian: round(median(runs.map((r) => r.rssMb)), 1),
    processes: median(runs.map((r) => r.processes)),
  };
}

export async function benchStartup(): Promise<Record<string, unknown>> {
  if (serverBuildIsStale()) await buildServer();
  const baseline = [];
  for (let run = 0; run < RUNS; run++) baseline.push(await baselineRss());
  const compiled = await measure(COMMANDS.compiled);
  const tsx = await measure(COMMANDS.tsx);
  return {
    runs: RUNS,
    compiled,
    tsx,
    targetReadyMs: 1_000,
    targetIdleTreeRssMb: 120,
    nodeBaselineRssMb: round(median(baseline), 1),
    readyRatioCompiledToTsx: round(compiled.readyMsMedian / tsx.readyMsMedian),
  };
}
