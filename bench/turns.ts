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

export async function benchTurns(): Promise<Record<string, unknown>> {
  const dataDir = mkdtempSync(join(tmpdir(), "tsumugi-bench-"));
  const peer = spawnScript("./turn-peer.ts", {
    selfId: "10000",
    warmup: WARMUP,
    sequential: SEQUENTIAL,
    concurrent: CONCURRENT,
    groups: GROUPS,
  });
  const { llm } = (await nextLine(peer)) as { llm: string };
  const validation = validateConfig({
    server: { port: 0 },
    storage: { url: `sqlite:${join(dataDir, "tsumugi.db")}` },
    chat: { realtime: { windowMs: 0 } },
    // One user asks again and again, as fast as it can: the per-minute turn limits would refuse it.
    limits: { userTurnsPerMinute: 0, groupTurnsPerMinute: 0 },
    // The framework alone: the built-in example plugins (stdio processes, voice) stay out.
    plugins: { dirs: [] },
    llm: {
      providers: [{ id: "zero", type: "openai-compatible", baseUrl: llm }],
      models: { planner: ["zero/m"], replyer: ["zero/m"] },
    },
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
  return {
    sequentialTurns: result.latencies.length,
    turnMsP50: round(percentile(result.latencies, 50), 3),
    turnMsP99: round(percentile(result.latencies, 99), 3),
    targetP50Ms: 2,
    targetP99Ms: 10,
    concurrentGroups: GROUPS,
    concurrentTurns: result.concurrentTurns,
    turnsPerSecond: Math.round((result.concurrentTurns / result.concurrentMs) * 1000),
    targetTurnsPerSecond: 1_000,
    botCpuMsPerTurn: round((cpu.user + cpu.system) / 1000 / botTurns, 3),
    peerCpuMsPerTurn: round(result.peerCpuMs / result.concurrentTurns, 3),
  };
}
