/**
 * Ingest flood (issue #2): group messages that do not trigger the bot, pushed through the
 * reverse WebSocket by a separate process, until every one is stored in SQLite. Compared with
 * a bare `ws` server that only parses the same frames, measured in the same run.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import pino from "pino";
import { WebSocketServer } from "ws";
import { startApp } from "../src/app.ts";
import { validateConfig } from "../src/config/validate.ts";
import { createLogger } from "../src/log/logger.ts";
import { waitFor } from "../test/support/wait.ts";
import { median, nextLine, round, spawnScript } from "./child.ts";
import { treeRss } from "./process-tree.ts";

const FLOOD = 20_000;
const GROUPS = 50;
const RUNS = 3;
const MEMORY_STEP = 50_000;

async function flood(url: string, count: number, offset: number, done: () => Promise<void>): Promise<number> {
  const generator = spawnScript("./load-generator.ts", {
    url,
    selfId: "10000",
    count,
    groups: GROUPS,
    offset,
  });
  await nextLine(generator);
  const started = performance.now();
  generator.stdin?.write("go\n");
  await done();
  const elapsed = performance.now() - started;
  generator.kill();
  return elapsed;
}

/** Waits until the flood has arrived; generous, for a slow machine. */
function floodDone(condition: () => boolean): Promise<void> {
  return waitFor(condition, 120_000, "the flood to arrive");
}

async function bareWsBaseline(): Promise<number> {
  const server = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  await new Promise((resolve) => server.once("listening", resolve));
  let parsed = 0;
  server.on("connection", (socket) => {
    socket.on("message", (data) => {
      // The generator's lifecycle event on connecting is not part of the flood.
      if ((JSON.parse(String(data)) as { post_type?: string }).post_type === "message") parsed++;
    });
  });
  const { port } = server.address() as { port: number };
  const rates: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    parsed = 0;
    const ms = await flood(`ws://127.0.0.1:${port}/`, FLOOD, run * FLOOD, () =>
      floodDone(() => parsed >= FLOOD),
    );
    rates.push((FLOOD / ms) * 1000);
  }
  server.close();
  return median(rates);
}

/** RSS of a bare `node -e` process, the floor any Node program starts from. */
async function nodeBaselineRssMb(): Promise<number | undefined> {
  const child = spawn(process.execPath, ["-e", "setInterval(()=>{},1e9)"], { stdio: "ignore" });
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const rss = child.pid === undefined ? undefined : treeRss(child.pid).mb;
  child.kill();
  return rss;
}

export async function benchIngest(): Promise<Record<string, unknown>> {
  const baseline = await bareWsBaseline();
  const dataDir = mkdtempSync(join(tmpdir(), "tsumugi-bench-"));
  const file = join(dataDir, "tsumugi.db");
  const validation = validateConfig({ server: { port: 0 }, storage: { url: `sqlite:${file}` } });
  if (!validation.ok) throw new Error(validation.problems.join("; "));
  // Info level, as users run it: one line per inbound message, written to /dev/null.
  const logger = createLogger({
    level: "info",
    destination: pino.destination({ dest: "/dev/null", sync: false }),
  });
  const app = await startApp({ config: validation.config, logger });
  const url = `ws://127.0.0.1:${app.address.port}/onebot/v11/ws`;
  const reader = new Database(file, { readonly: true });
  const stored = () => (reader.prepare("SELECT COUNT(*) AS n FROM messages").get() as { n: number }).n;

  const settle = async () => {
    await new Promise((resolve) => setTimeout(resolve, 300));
    (globalThis as { gc?: () => void }).gc?.();
    return process.memoryUsage().rss;
  };
  const rssAtStart = await settle();
  const rates: number[] = [];
  let total = 0;
  for (let run = 0; run < RUNS; run++) {
    const target = total + FLOOD;
    const ms = await flood(url, FLOOD, total, () => floodDone(() => stored() >= target));
    total = target;
    rates.push((FLOOD / ms) * 1000);
  }

  while (total < MEMORY_STEP) {
    const target = Math.min(MEMORY_STEP, total + FLOOD);
    await flood(url, target - total, total, () => floodDone(() => stored() >= target));
    total = target;
  }
  const rssAt50k = await settle();
  while (total < 2 * MEMORY_STEP) {
    const target = Math.min(2 * MEMORY_STEP, total + FLOOD);
    await flood(url, target - total, total, () => floodDone(() => stored() >= target));
    total = target;
  }
  const rssAt100k = await settle();

  reader.close();
  await app.stop();
  rmSync(dataDir, { recursive: true, force: true });
  const rate = median(rates);
  return {
    messages: FLOOD,
    groups: GROUPS,
    runs: rates.map((r) => Math.round(r)),
    messagesPerSecond: Math.round(rate),
    target: 20_000,
    bareWsMessagesPerSecond: Math.round(baseline),
    ratioToBareWs: round(rate / baseline),
    rssMbAt50k: round(rssAt50k / 2 ** 20, 1),
    rssMbAt100k: round(rssAt100k / 2 ** 20, 1),
    rssGrowthPercent50kTo100k: round(((rssAt100k - rssAt50k) / rssAt50k) * 100, 1),
    rssMbAtStart: round(rssAtStart / 2 ** 20, 1),
    // Issue 15's target: at most 10 % growth over 100,000 handled messages.
    rssGrowthPercentOver100k: round(((rssAt100k - rssAtStart) / rssAtStart) * 100, 1),
    nodeBaselineRssMb: round((await nodeBaselineRssMb()) ?? Number.NaN, 1),
    gcExposed: typeof (globalThis as { gc?: unknown }).gc === "function",
  };
}
