/**
 * Commands: `ping N` → `pong N` through OneBot reverse WebSocket — for Tsumugi: ingest, store,
 * command match, handler, send, store — against Koishi 4.18 with its OneBot adapter and a bare
 * `ws` server that only answers, in the same run, interleaved (Tsumugi, Koishi, bare, again),
 * each side in its own process and driven by the same load generator (command-peer.ts). The
 * figures that matter on a shared machine are the ratios within a round. Then the cost a plugin
 * tool call adds to a turn, measured in-process: the full plugin path (PreToolUse gate,
 * argument validation, timeout, in-flight counting, handler context, PostToolUse) against
 * calling the same handler directly.
 *
 * TSUMUGI_BENCH_CPU_PROF=<dir> writes a CPU profile of Tsumugi's side of each round there.
 * TSUMUGI_BENCH_BASELINE=<checkout> adds that checkout's Tsumugi (e.g. the commit before a
 * change) to each round, as `baseline`, before Koishi.
 */
import type { ChildProcess } from "node:child_process";
import { spawn } from "node:child_process";
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { exited } from "./bot-child.ts";
import { median, nextLine, percentile, round, spawnScript } from "./child.ts";
import { cpuMs } from "./process-tree.ts";
import { measureToolDispatch } from "./tool-dispatch.ts";

const WARMUP = 2_000;
const SEQUENTIAL = 2_000;
const CONCURRENT = 10_000;
const IN_FLIGHT = 64;
const ROUNDS = 5;
type Side = "tsumugi" | "baseline" | "koishi" | "bare";

interface SideFigures {
  commandsPerSecond: number;
  /** The side's own CPU time per command over the whole run: less disturbed by a busy machine. */
  cpuMsPerCommand: number;
  commandMsP50: number;
  commandMsP99: number;
}

type Round = Partial<Record<Side, SideFigures>> & {
  timesKoishi: number;
  shareOfBare: number;
  baselineTimesKoishi?: number;
  baselineShareOfBare?: number;
};

export async function benchCommands(): Promise<Record<string, unknown>> {
  const baselineDir = process.env.TSUMUGI_BENCH_BASELINE;
  const sides: Side[] = baselineDir
    ? ["tsumugi", "baseline", "koishi", "bare"]
    : ["tsumugi", "koishi", "bare"];
  const loadBefore = loadavg();
  const rounds: Round[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const figures: Partial<Record<Side, SideFigures>> = {};
    for (const side of sides) figures[side] = await measureSide(side, baselineDir);
    const koishi = figures.koishi!.commandsPerSecond;
    const bare = figures.bare!.commandsPerSecond;
    const baseline = figures.baseline?.commandsPerSecond;
    rounds.push({
      ...figures,
      timesKoishi: round(figures.tsumugi!.commandsPerSecond / koishi, 2),
      shareOfBare: round(figures.tsumugi!.commandsPerSecond / bare, 3),
      ...(baseline === undefined
        ? {}
        : {
            baselineTimesKoishi: round(baseline / koishi, 2),
            baselineShareOfBare: round(baseline / bare, 3),
          }),
    });
  }
  const loadAfter = loadavg();
  const dispatch = await measureToolDispatch();
  const ofTsumugi = (key: keyof SideFigures) => median(rounds.map((r) => r.tsumugi![key]));
  return {
    sequentialCommands: SEQUENTIAL,
    inFlight: IN_FLIGHT,
    concurrentCommands: CONCURRENT,
    rounds,
    commandMsP50: ofTsumugi("commandMsP50"),
    commandMsP99: ofTsumugi("commandMsP99"),
    commandsPerSecond: ofTsumugi("commandsPerSecond"),
    cpuMsPerCommand: ofTsumugi("cpuMsPerCommand"),
    timesKoishi: median(rounds.map((r) => r.timesKoishi)),
    shareOfBare: median(rounds.map((r) => r.shareOfBare)),
    loadAverage1m: { before: round(loadBefore[0]!, 2), after: round(loadAfter[0]!, 2) },
    targetP50Ms: 0.3,
    targetCommandsPerSecond: 10_000,
    targetTimesKoishi: 10,
    targetShareOfBare: 0.33,
    toolCallOverheadMs: dispatch.overheadMs,
    targetToolCallOverheadMs: 0.05,
  };
}

async function measureSide(side: Side, baselineDir: string | undefined): Promise<SideFigures> {
  const server = startSide(side, baselineDir);
  try {
    const { url } = (await nextLine(server)) as { url: string };
    const cpuBefore = cpuMs(server.pid!);
    const peer = spawnScript("./command-peer.ts", {
      url,
      selfId: "10000",
      warmup: WARMUP,
      sequential: SEQUENTIAL,
      concurrent: CONCURRENT,
      inFlight: IN_FLIGHT,
    });
    const result = (await nextLine(peer)) as {
      latencies: number[];
      concurrent: number;
      concurrentMs: number;
    };
    const cpuUsed = cpuMs(server.pid!) - cpuBefore;
    await exited(peer);
    return {
      commandsPerSecond: Math.round((result.concurrent / result.concurrentMs) * 1000),
      cpuMsPerCommand: round(cpuUsed / (WARMUP + SEQUENTIAL + result.concurrent), 4),
      commandMsP50: round(percentile(result.latencies, 50), 3),
      commandMsP99: round(percentile(result.latencies, 99), 3),
    };
  } finally {
    server.stdin?.end();
    await exited(server);
  }
}

function startSide(side: Side, baselineDir: string | undefined): ChildProcess {
  if (side === "koishi") {
    const script = fileURLToPath(new URL("./koishi-command-server.mjs", import.meta.url));
    return spawn(process.execPath, [script], { stdio: ["pipe", "pipe", "inherit"] });
  }
  if (side === "baseline")
    return spawnScript("./command-server.ts", { side: "tsumugi", checkout: baselineDir });
  const profileDir = side === "tsumugi" ? process.env.TSUMUGI_BENCH_CPU_PROF : undefined;
  return spawnScript(
    "./command-server.ts",
    { side },
    profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [],
  );
}
