/**
 * Start-up and idle footprint (issues #15, #52): `npm start`'s process (node with package.json's
 * flags running dist/server/main.mjs, logging at info to a file; bot-child.ts) started RUNS times
 * on a temp data folder with the default plugins, from spawn to the first 200 from /healthz, then
 * the resident memory of its whole process tree (the bot and its plugin processes) once idle.
 * That is the time beyond npm's own start (npm and the prestart build check run before it).
 * Interleaved with it, start by start: the floor (a bare node process answering /healthz,
 * healthz-floor.mjs), the same bundle without node flags (what the memory flags save), the old
 * way (`tsx src/main.ts`) and, with TSUMUGI_BENCH_BASELINE=<checkout>, that checkout's compiled
 * bot (built there beforehand). The CPU the bot used until /healthz answered is reported too: on
 * a loaded machine it varies far less than the wall time.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildServer, serverBuildIsStale } from "../scripts/build-server.ts";
import { flagVariants, npmStartCommand, npmStartFlags, sleep, startBotChild } from "./bot-child.ts";
import { type Goal, interleaved, median, round } from "./child.ts";
import { cpuMs, treeRss } from "./process-tree.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const RUNS = 5;
/** After /healthz answers: time for plugin processes to start and start-up garbage to settle. */
const IDLE_MS = 3_000;

interface Start {
  readyMs: number;
  cpuToReadyMs: number;
  rssMb: number;
  processes: number;
}

/** One start: milliseconds to a healthy /healthz and the CPU used until then, then the idle tree's RSS. */
async function startOnce(command: string[]): Promise<Start> {
  const bot = await startBotChild({ command });
  try {
    const cpuToReadyMs = cpuMs(bot.child.pid!);
    await sleep(IDLE_MS);
    const { mb, processes } = treeRss(bot.child.pid!);
    return { readyMs: bot.readyMs, cpuToReadyMs, rssMb: mb, processes };
  } finally {
    await bot.stop();
  }
}

export async function benchStartup(): Promise<Record<string, unknown>> {
  if (serverBuildIsStale()) await buildServer();
  const baselineDir = process.env.TSUMUGI_BENCH_BASELINE;
  const commands: Record<string, string[]> = {
    "npm start": npmStartCommand(),
    ...Object.fromEntries(
      Object.entries(flagVariants()).map(([row, flags]) => [row, npmStartCommand({ flags })]),
    ),
    ...(baselineDir && { baseline: npmStartCommand({ checkout: baselineDir }) }),
    "tsx src/main.ts": [join(ROOT, "node_modules/.bin/tsx"), join(ROOT, "src/main.ts")],
    floor: [process.execPath, fileURLToPath(new URL("./healthz-floor.mjs", import.meta.url))],
  };
  const run = await interleaved(
    RUNS,
    Object.fromEntries(Object.entries(commands).map(([row, command]) => [row, () => startOnce(command)])),
  );
  const rows = Object.fromEntries(
    Object.keys(commands).map((row) => {
      const starts = run.rounds.map((r) => r[row]!);
      return [
        row,
        {
          readyMsMedian: Math.round(median(starts.map((s) => s.readyMs))),
          readyMsRuns: starts.map((s) => Math.round(s.readyMs)),
          cpuToReadyMsMedian: Math.round(median(starts.map((s) => s.cpuToReadyMs))),
          idleTreeRssMbMedian: round(median(starts.map((s) => s.rssMb)), 1),
          idleTreeRssMbRuns: starts.map((s) => round(s.rssMb, 1)),
          processes: median(starts.map((s) => s.processes)),
        },
      ];
    }),
  );
  const shipped = rows["npm start"]!;
  const measured = `npm start's process (node ${npmStartFlags().join(" ")}), median of ${RUNS} interleaved starts, load ${run.loadAverage.before[0]} → ${run.loadAverage.after[0]}`;
  const readyS = round(shipped.readyMsMedian / 1000, 2);
  const goals: Goal[] = [
    {
      goal: "npm start → healthy, s (beyond npm)",
      target: "≤ 0.8",
      figure: readyS,
      measured,
      met: readyS <= 0.8,
    },
    {
      goal: "idle RSS of the process tree, MB",
      target: "≤ 110",
      figure: shipped.idleTreeRssMbMedian,
      measured,
      met: shipped.idleTreeRssMbMedian <= 110,
    },
  ];
  return {
    runs: RUNS,
    loadAverage: run.loadAverage,
    commands: Object.fromEntries(
      Object.entries(commands).map(([row, argv]) => [row, argv.slice(1).join(" ")]),
    ),
    ...rows,
    readyOverFloorMs: shipped.readyMsMedian - rows.floor!.readyMsMedian,
    goals,
  };
}
