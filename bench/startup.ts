/**
 * Start-up and idle footprint (issue #15): the compiled bot (`npm start`: node
 * dist/server/main.mjs) started RUNS times on a temp data folder with the default plugins, from
 * spawn to the first 200 from /healthz, then the resident memory of its whole process tree
 * (the bot and its plugin processes) once idle. Measured in the same run: the old way
 * (`tsx src/main.ts`, a transpiler at every start) and a bare `node -e` process as baseline.
 * The CPU the bot used until /healthz answered is reported too: on a loaded machine it varies
 * far less than the wall time.
 *
 * TSUMUGI_BENCH_BASELINE=<checkout> also starts that checkout's compiled bot (built there
 * beforehand), alternating with this one start by start, as `baseline`.
 */
import { spawn } from "node:child_process";
import { loadavg } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildServer, serverBuildIsStale } from "../scripts/build-server.ts";
import { exited, npmStartCommand, sleep, startBotChild } from "./bot-child.ts";
import { median, round } from "./child.ts";
import { cpuMs, treeRss } from "./process-tree.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const RUNS = 5;
/** After /healthz answers: time for plugin processes to start and start-up garbage to settle. */
const IDLE_MS = 3_000;

const COMMANDS = {
  compiled: npmStartCommand(),
  tsx: [join(ROOT, "node_modules/.bin/tsx"), join(ROOT, "src/main.ts")],
};

interface Start {
  readyMs: number;
  cpuToReadyMs: number;
  rssMb: number;
  processes: number;
}

/** One start: milliseconds to a healthy /healthz and the CPU used until then, then the idle tree's RSS. */
async function startOnce(command: string[]): Promise<Start> {
  const bot = await startBotChild(command);
  try {
    const cpuToReadyMs = cpuMs(bot.child.pid!);
    await sleep(IDLE_MS);
    const { mb, processes } = treeRss(bot.child.pid!);
    return { readyMs: bot.readyMs, cpuToReadyMs, rssMb: mb, processes };
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

/** RUNS starts of each command, taking turns, so a change in the machine's load hits all of them alike. */
async function measure(commands: string[][]) {
  const runs: Start[][] = commands.map(() => []);
  for (let run = 0; run < RUNS; run++) {
    for (const [index, command] of commands.entries()) runs[index]!.push(await startOnce(command));
  }
  return runs.map((starts) => ({
    readyMsMedian: Math.round(median(starts.map((r) => r.readyMs))),
    readyMsRuns: starts.map((r) => Math.round(r.readyMs)),
    cpuToReadyMsMedian: Math.round(median(starts.map((r) => r.cpuToReadyMs))),
    idleTreeRssMbMedian: round(median(starts.map((r) => r.rssMb)), 1),
    processes: median(starts.map((r) => r.processes)),
  }));
}

/** `npm start`'s command with another checkout's bundle in place of this one's. */
function baselineCommand(checkout: string): string[] {
  return COMMANDS.compiled.map((arg) =>
    arg === join(ROOT, "dist/server/main.mjs") ? join(checkout, "dist/server/main.mjs") : arg,
  );
}

export async function benchStartup(): Promise<Record<string, unknown>> {
  if (serverBuildIsStale()) await buildServer();
  const bareNode = [];
  for (let run = 0; run < RUNS; run++) bareNode.push(await baselineRss());
  const baselineDir = process.env.TSUMUGI_BENCH_BASELINE;
  const loadBefore = loadavg();
  const [compiled, baselineCheckout] = await measure(
    baselineDir ? [COMMANDS.compiled, baselineCommand(baselineDir)] : [COMMANDS.compiled],
  );
  const [tsx] = await measure([COMMANDS.tsx]);
  return {
    runs: RUNS,
    loadAverage: {
      before: loadBefore.map((load) => round(load, 2)),
      after: loadavg().map((load) => round(load, 2)),
    },
    compiled,
    ...(baselineCheckout && { baseline: { checkout: baselineDir, ...baselineCheckout } }),
    tsx,
    targetReadyMs: 1_000,
    targetIdleTreeRssMb: 120,
    nodeBaselineRssMb: round(median(bareNode), 1),
    readyRatioCompiledToTsx: round(compiled!.readyMsMedian / tsx!.readyMsMedian),
  };
}
