/**
 * Replied turns (issues #3, #52): ingest → prompt → planner → replyer → send → stored, with a
 * zero-latency model, by `npm start`'s process (bot-child.ts: compiled bundle, its node flags,
 * info log lines to a file). The model and the OneBot side run in another process (turn-peer.ts),
 * so the times are the bot's own plus two loopback HTTP round trips and two WebSocket hops: an
 * upper bound on the framework's time. Sequential turns give p50/p99; 50 groups at once give
 * turns/s; the bot process's CPU time per turn is the steadiest figure on a busy machine. With
 * TSUMUGI_BENCH_IN_PROCESS=1, an extra row interleaved with it: the bot in the bench's own
 * process (`runTurns`, which the scale-out bench builds on).
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { buildServer, serverBuildIsStale } from "../scripts/build-server.ts";
import { startApp } from "../src/app.ts";
import { validateConfig } from "../src/config/validate.ts";
import { createLogger } from "../src/log/logger.ts";
import { npmStartCommand, startBotChild } from "./bot-child.ts";
import { type Goal, interleaved, median, nextLine, percentile, round, spawnScript } from "./child.ts";
import { cpuMs } from "./process-tree.ts";

const WARMUP = 100;
const SEQUENTIAL = 400;
const CONCURRENT = 1_000;
const GROUPS = 50;
const ROUNDS = 3;

/** The config keys every turn run sets, for the zero-latency model at `llm`. */
function turnConfig(llm: string): Record<string, unknown> {
  return {
    // The peer answers each reply at once, as a bot would: the ping-pong guard would take it for one.
    chat: { realtime: { windowMs: 0 }, participation: { pingPongMs: 0 } },
    // One user asks again and again, as fast as it can: the per-minute turn limits would refuse it.
    limits: { userTurnsPerMinute: 0, groupTurnsPerMinute: 0 },
    // The framework alone: the built-in example plugins (stdio processes, voice) stay out.
    plugins: { dirs: [] },
    llm: {
      providers: [{ id: "zero", type: "openai-compatible", baseUrl: llm }],
      models: { planner: ["zero/m"], replyer: ["zero/m"] },
    },
  };
}

function startPeer(concurrent: number): ChildProcess {
  return spawnScript("./turn-peer.ts", {
    selfId: "10000",
    warmup: WARMUP,
    sequential: SEQUENTIAL,
    concurrent,
    groups: GROUPS,
  });
}

interface PeerResult {
  latencies: number[];
  concurrentTurns: number;
  concurrentMs: number;
  peerCpuMs: number;
}

/** The same turns against `npm start`'s process; its CPU read from /proc. */
async function runShippedTurns(concurrent: number): Promise<TurnRun> {
  const peer = startPeer(concurrent);
  const { llm } = (await nextLine(peer)) as { llm: string };
  const bot = await startBotChild({ config: turnConfig(llm) });
  try {
    const cpuBefore = cpuMs(bot.child.pid!);
    peer.stdin?.write(`${JSON.stringify({ url: `ws://127.0.0.1:${bot.port}/onebot/v11/ws` })}\n`);
    const result = (await nextLine(peer)) as unknown as PeerResult;
    const botTurns = WARMUP + result.latencies.length + result.concurrentTurns;
    return { ...result, botCpuMsPerTurn: (cpuMs(bot.child.pid!) - cpuBefore) / botTurns };
  } finally {
    peer.kill();
    await bot.stop();
  }
}

export interface TurnRunOptions {
  /** Turns the 50 groups run at once after the sequential ones (0: sequential only). */
  concurrent: number;
  /** Top-level config keys set over the bench's (e.g. `storage`, `cluster`); default: SQLite in a temp folder. */
  config?: Record<string, unknown>;
}

export interface TurnRun {
  /** Milliseconds from mention to answer of each sequential turn. */
  latencies: number[];
  concurrentTurns: number;
  concurrentMs: number;
  /** The bot's CPU time (this process) over every turn, warm-up included. */
  botCpuMsPerTurn: number;
  peerCpuMs: number;
}

/** Runs the bot in this process against the turn peer: WARMUP turns, SEQUENTIAL timed ones, then `concurrent`. */
export async function runTurns(options: TurnRunOptions): Promise<TurnRun> {
  const dataDir = mkdtempSync(join(tmpdir(), "tsumugi-bench-"));
  const peer = startPeer(options.concurrent);
  const { llm } = (await nextLine(peer)) as { llm: string };
  const validation = validateConfig({
    server: { port: 0 },
    storage: { url: `sqlite:${join(dataDir, "tsumugi.db")}` },
    ...turnConfig(llm),
    ...options.config,
  });
  if (!validation.ok) throw new Error(validation.problems.join("; "));
  // Info level, as users run it, written to /dev/null.
  const logger = createLogger({
    level: "info",
    destination: pino.destination({ dest: "/dev/null", sync: false }),
  });
  const app = await startApp({ config: validation.config, logger });
  const cpuBefore = process.cpuUsage();
  peer.stdin?.write(`${JSON.stringify({ url: `ws://127.0.0.1:${app.address.port}/onebot/v11/ws` })}\n`);
  const result = (await nextLine(peer)) as unknown as PeerResult;
  const cpu = process.cpuUsage(cpuBefore);
  const botTurns = WARMUP + result.latencies.length + result.concurrentTurns;
  peer.kill();
  await app.stop();
  rmSync(dataDir, { recursive: true, force: true });
  return { ...result, botCpuMsPerTurn: (cpu.user + cpu.system) / 1000 / botTurns };
}

/** The sequential figures of a run, as reported. */
export function sequentialFigures(run: TurnRun): Record<string, number> {
  return {
    sequentialTurns: run.latencies.length,
    turnMsP50: round(percentile(run.latencies, 50), 3),
    turnMsP99: round(percentile(run.latencies, 99), 3),
    botCpuMsPerTurn: round(run.botCpuMsPerTurn, 3),
  };
}

/** Every figure of a run, as reported. */
function runFigures(run: TurnRun): Record<string, number> {
  return {
    ...sequentialFigures(run),
    turnsPerSecond: Math.round((run.concurrentTurns / run.concurrentMs) * 1000),
    peerCpuMsPerTurn: round(run.peerCpuMs / run.concurrentTurns, 3),
  };
}

export async function benchTurns(): Promise<Record<string, unknown>> {
  if (serverBuildIsStale()) await buildServer();
  const run = await interleaved(ROUNDS, {
    tsumugi: async () => runFigures(await runShippedTurns(CONCURRENT)),
    ...(process.env.TSUMUGI_BENCH_IN_PROCESS && {
      inProcess: async () => runFigures(await runTurns({ concurrent: CONCURRENT })),
    }),
  });
  const shipped = (key: string) => median(run.rounds.map((r) => r.tsumugi![key]!));
  const cpu = shipped("botCpuMsPerTurn");
  const measured = `npm start's process, median of ${ROUNDS} interleaved rounds, load ${run.loadAverage.before[0]} → ${run.loadAverage.after[0]}`;
  const goals: Goal[] = [
    { goal: "CPU per turn, zero-latency model, ms", target: "≤ 3.9", figure: cpu, measured, met: cpu <= 3.9 },
    {
      goal: "turn p50 ms (one at a time)",
      target: "≤ 2",
      figure: shipped("turnMsP50"),
      measured,
      met: shipped("turnMsP50") <= 2,
    },
    {
      goal: "turn p99 ms (one at a time)",
      target: "≤ 10",
      figure: shipped("turnMsP99"),
      measured,
      met: shipped("turnMsP99") <= 10,
    },
    {
      goal: `turns/s, ${GROUPS} groups at once`,
      target: "≥ 1,000",
      figure: shipped("turnsPerSecond"),
      measured,
      met: shipped("turnsPerSecond") >= 1_000,
    },
  ];
  return {
    command: npmStartCommand().slice(1).join(" "),
    warmupTurns: WARMUP,
    sequentialTurns: SEQUENTIAL,
    concurrentGroups: GROUPS,
    concurrentTurns: CONCURRENT,
    loadAverage: run.loadAverage,
    rounds: run.rounds,
    turnMsP50: shipped("turnMsP50"),
    turnMsP99: shipped("turnMsP99"),
    turnsPerSecond: shipped("turnsPerSecond"),
    botCpuMsPerTurn: cpu,
    goals,
  };
}
