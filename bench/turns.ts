/**
 * Replied turns (issue #3): ingest → prompt → planner → replyer → send → stored, with a
 * zero-latency model. The model and the OneBot side run in another process, so the times are
 * the bot's own plus two loopback HTTP round trips and two WebSocket hops: an upper bound on
 * the framework's time. Sequential turns give p50/p99; 50 groups at once give turns/s.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { startApp } from "../src/app.ts";
import { validateConfig } from "../src/config/validate.ts";
import { createLogger } from "../src/log/logger.ts";
import { nextLine, percentile, round, spawnScript } from "./child.ts";

const WARMUP = 100;
const SEQUENTIAL = 400;
const CONCURRENT = 2_000;
const GROUPS = 50;

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
  const peer = spawnScript("./turn-peer.ts", {
    selfId: "10000",
    warmup: WARMUP,
    sequential: SEQUENTIAL,
    concurrent: options.concurrent,
    groups: GROUPS,
  });
  const { llm } = (await nextLine(peer)) as { llm: string };
  const validation = validateConfig({
    server: { port: 0 },
    storage: { url: `sqlite:${join(dataDir, "tsumugi.db")}` },
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
  const result = (await nextLine(peer)) as {
    latencies: number[];
    concurrentTurns: number;
    concurrentMs: number;
    peerCpuMs: number;
  };
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

export async function benchTurns(): Promise<Record<string, unknown>> {
  const run = await runTurns({ concurrent: CONCURRENT });
  const { sequentialTurns, turnMsP50, turnMsP99, botCpuMsPerTurn } = sequentialFigures(run);
  return {
    sequentialTurns,
    turnMsP50,
    turnMsP99,
    targetP50Ms: 2,
    targetP99Ms: 10,
    concurrentGroups: GROUPS,
    concurrentTurns: run.concurrentTurns,
    turnsPerSecond: Math.round((run.concurrentTurns / run.concurrentMs) * 1000),
    targetTurnsPerSecond: 1_000,
    botCpuMsPerTurn,
    peerCpuMsPerTurn: round(run.peerCpuMs / run.concurrentTurns, 3),
  };
}
