/**
 * Commands: `ping N` → `pong N` through OneBot reverse WebSocket — for Tsumugi: ingest, store,
 * command match, handler, send, store — as users run it (`npm start`'s process: the compiled
 * bundle with package.json's node flags, logging at info to a file; bot-child.ts), against
 * Koishi 4.18 with its OneBot adapter and a bare `ws` server that only answers, interleaved in
 * one run (Tsumugi, the extra Tsumugi rows, Koishi, bare, again), each side in its own process
 * and driven by the same load generator (command-peer.ts). The figures that matter on a shared
 * machine are the ratios within a round. Extra row: the same process without node flags (what
 * the memory flags cost). Then the cost a plugin tool call adds to a turn, measured in-process:
 * the full plugin path against calling the same handler directly.
 *
 * TSUMUGI_BENCH_CPU_PROF=<dir> writes a CPU profile of Tsumugi's process in each round there.
 * TSUMUGI_BENCH_BASELINE=<checkout> adds that checkout's compiled bot (built there beforehand)
 * to each round, as `baseline`. TSUMUGI_BENCH_FLAGS="a b;c;" adds a row per `;`-separated set of
 * node flags in place of npm start's (an empty set: none), as `flags <set>`.
 */
import type { ChildProcess } from "node:child_process";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { buildServer, serverBuildIsStale } from "../scripts/build-server.ts";
import {
  type BotChild,
  exited,
  flagVariants,
  npmStartCommand,
  npmStartFlags,
  startBotChild,
} from "./bot-child.ts";
import { type Goal, interleaved, median, nextLine, percentile, round, spawnScript } from "./child.ts";
import { cpuMs, treeRss } from "./process-tree.ts";
import { measureToolDispatch } from "./tool-dispatch.ts";

const WARMUP = 1_000;
const SEQUENTIAL = 1_000;
const CONCURRENT = 5_000;
const IN_FLIGHT = 64;
const ROUNDS = 3;

interface SideFigures {
  commandsPerSecond: number;
  /** The side's own CPU time per command over the whole run: less disturbed by a busy machine. */
  cpuMsPerCommand: number;
  commandMsP50: number;
  commandMsP99: number;
  /** p99 of the pings answered while IN_FLIGHT were outstanding. */
  inFlightMsP99: number;
  /** Resident memory of the side's process tree right after the load. */
  rssMbAfterLoad: number;
  /** Bytes of log the side wrote per command (Tsumugi's rows). */
  logBytesPerCommand?: number;
}

/** A side the load generator drives: its reverse-WebSocket url and the process to read CPU from. */
interface Served {
  url: string;
  pid: number;
  logBytes?: () => number;
  stop(): Promise<void>;
}

async function tsumugi(command: string[]): Promise<Served> {
  const profileDir = process.env.TSUMUGI_BENCH_CPU_PROF;
  const bot: BotChild = await startBotChild({
    command,
    extraFlags: profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [],
  });
  return {
    url: `ws://127.0.0.1:${bot.port}/onebot/v11/ws`,
    pid: bot.child.pid!,
    logBytes: bot.logBytes,
    stop: bot.stop,
  };
}

/** Koishi or the bare floor: a script that prints its url and stops when its stdin closes. */
async function script(child: ChildProcess): Promise<Served> {
  const { url } = (await nextLine(child)) as { url: string };
  return {
    url,
    pid: child.pid!,
    stop: async () => {
      child.stdin?.end();
      await exited(child);
    },
  };
}

const koishi = () =>
  script(
    spawn(process.execPath, [fileURLToPath(new URL("./koishi-command-server.mjs", import.meta.url))], {
      stdio: ["pipe", "pipe", "inherit"],
    }),
  );
const bare = () => script(spawnScript("./bare-command-server.ts", {}));

async function measure(start: () => Promise<Served>): Promise<SideFigures> {
  const served = await start();
  try {
    const cpuBefore = cpuMs(served.pid);
    const logBefore = served.logBytes?.() ?? 0;
    const peer = spawnScript("./command-peer.ts", {
      url: served.url,
      selfId: "10000",
      warmup: WARMUP,
      sequential: SEQUENTIAL,
      concurrent: CONCURRENT,
      inFlight: IN_FLIGHT,
    });
    const result = (await nextLine(peer)) as {
      latencies: number[];
      concurrentLatencies: number[];
      concurrent: number;
      concurrentMs: number;
    };
    const commands = WARMUP + SEQUENTIAL + result.concurrent;
    const cpuUsed = cpuMs(served.pid) - cpuBefore;
    const rssMbAfterLoad = round(treeRss(served.pid).mb, 1);
    await exited(peer);
    return {
      commandsPerSecond: Math.round((result.concurrent / result.concurrentMs) * 1000),
      cpuMsPerCommand: round(cpuUsed / commands, 4),
      commandMsP50: round(percentile(result.latencies, 50), 3),
      commandMsP99: round(percentile(result.latencies, 99), 3),
      inFlightMsP99: round(percentile(result.concurrentLatencies, 99), 2),
      rssMbAfterLoad,
      ...(served.logBytes && { logBytesPerCommand: round((served.logBytes() - logBefore) / commands, 1) }),
    };
  } finally {
    await served.stop();
  }
}

export async function benchCommands(): Promise<Record<string, unknown>> {
  if (serverBuildIsStale()) await buildServer();
  const baselineDir = process.env.TSUMUGI_BENCH_BASELINE;
  const sides: Record<string, () => Promise<SideFigures>> = {
    tsumugi: () => measure(() => tsumugi(npmStartCommand())),
    ...Object.fromEntries(
      Object.entries(flagVariants()).map(([row, flags]) => [
        row,
        () => measure(() => tsumugi(npmStartCommand({ flags }))),
      ]),
    ),
    ...(baselineDir && {
      baseline: () => measure(() => tsumugi(npmStartCommand({ checkout: baselineDir }))),
    }),
    koishi: () => measure(koishi),
    bare: () => measure(bare),
  };
  const run = await interleaved(ROUNDS, sides);
  const rounds = run.rounds.map((figures) => ({
    figures,
    ratios: Object.fromEntries(
      Object.keys(sides)
        .filter((side) => side !== "koishi" && side !== "bare")
        .map((side) => [
          side,
          {
            timesKoishi: round(figures[side]!.commandsPerSecond / figures.koishi!.commandsPerSecond, 2),
            shareOfBare: round(figures[side]!.commandsPerSecond / figures.bare!.commandsPerSecond, 3),
          },
        ]),
    ),
  }));
  const ofTsumugi = (key: keyof SideFigures) => median(rounds.map((r) => r.figures.tsumugi![key] as number));
  const timesKoishi = median(rounds.map((r) => r.ratios.tsumugi!.timesKoishi));
  const shareOfBare = median(rounds.map((r) => r.ratios.tsumugi!.shareOfBare));
  const inFlightMsP99 = ofTsumugi("inFlightMsP99");
  const dispatch = await measureToolDispatch();
  const measured = `npm start's process (node ${npmStartFlags().join(" ")}), median of ${ROUNDS} interleaved rounds, load ${run.loadAverage.before[0]} → ${run.loadAverage.after[0]}`;
  const goals: Goal[] = [
    {
      goal: "command path × Koishi 4.18",
      target: "≥ 10",
      figure: timesKoishi,
      measured,
      met: timesKoishi >= 10,
    },
    {
      goal: "command path ÷ bare ws",
      target: "≥ 0.4 (aim 0.5)",
      figure: shareOfBare,
      measured,
      met: shareOfBare >= 0.4,
    },
    {
      goal: `command p99 ms, ${IN_FLIGHT} in flight`,
      target: "reported",
      figure: inFlightMsP99,
      measured,
      met: true,
    },
  ];
  return {
    command: npmStartCommand().slice(1).join(" "),
    sequentialCommands: SEQUENTIAL,
    inFlight: IN_FLIGHT,
    concurrentCommands: CONCURRENT,
    loadAverage: run.loadAverage,
    rounds,
    commandMsP50: ofTsumugi("commandMsP50"),
    commandMsP99: ofTsumugi("commandMsP99"),
    inFlightMsP99,
    commandsPerSecond: ofTsumugi("commandsPerSecond"),
    cpuMsPerCommand: ofTsumugi("cpuMsPerCommand"),
    timesKoishi,
    shareOfBare,
    toolCallOverheadMs: dispatch.overheadMs,
    targetToolCallOverheadMs: 0.05,
    goals,
  };
}
