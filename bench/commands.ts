/**
 * Commands (issue #5): `ping N` → `pong N` answered by the built-in ping plugin through
 * OneBot — ingest, store, command match, handler, send, store — with the OneBot side in its
 * own process. Then the cost a plugin tool call adds to a turn, measured in-process: the
 * full plugin path (PreToolUse gate, argument validation, timeout, in-flight counting,
 * handler context, PostToolUse) against calling the same handler directly.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import pino from "pino";
import { startApp } from "../src/app.ts";
import { validateConfig } from "../src/config/validate.ts";
import { createLogger } from "../src/log/logger.ts";
import { nextLine, percentile, round, spawnScript } from "./child.ts";
import { measureToolDispatch } from "./tool-dispatch.ts";

const WARMUP = 2_000;
const SEQUENTIAL = 2_000;
const CONCURRENT = 30_000;
const IN_FLIGHT = 64;

export async function benchCommands(): Promise<Record<string, unknown>> {
  const dataDir = mkdtempSync(join(tmpdir(), "tsumugi-bench-"));
  const validation = validateConfig({
    server: { port: 0 },
    storage: { url: `sqlite:${join(dataDir, "tsumugi.db")}` },
    plugins: { dirs: [fileURLToPath(new URL("../plugins", import.meta.url))] },
  });
  if (!validation.ok) throw new Error(validation.problems.join("; "));
  // Info level, as users run it, written to /dev/null.
  const logger = createLogger({
    level: "info",
    destination: pino.destination({ dest: "/dev/null", sync: false }),
  });
  const app = await startApp({ config: validation.config, logger });
  const peer = spawnScript("./command-peer.ts", {
    url: `ws://127.0.0.1:${app.address.port}/onebot/v11/ws`,
    selfId: "10000",
    warmup: WARMUP,
    sequential: SEQUENTIAL,
    concurrent: CONCURRENT,
    inFlight: IN_FLIGHT,
  });
  const result = (await nextLine(peer)) as { latencies: number[]; concurrent: number; concurrentMs: number };
  peer.kill();
  await app.stop();
  rmSync(dataDir, { recursive: true, force: true });
  const dispatch = await measureToolDispatch();
  return {
    sequentialCommands: result.latencies.length,
    commandMsP50: round(percentile(result.latencies, 50), 3),
    commandMsP99: round(percentile(result.latencies, 99), 3),
    targetP50Ms: 0.3,
    inFlight: IN_FLIGHT,
    concurrentCommands: result.concurrent,
    commandsPerSecond: Math.round((result.concurrent / result.concurrentMs) * 1000),
    targetCommandsPerSecond: 10_000,
    toolCallOverheadMs: dispatch.overheadMs,
    targetToolCallOverheadMs: 0.05,
  };
}
