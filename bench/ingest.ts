/**
 * Ingest flood (issue #2): group messages that do not trigger the bot, pushed through the
 * reverse WebSocket by a separate process (load-generator.ts), until every one is stored in
 * SQLite, by `npm start`'s process (bot-child.ts: compiled bundle, its node flags, info log
 * lines to a file). Compared with a bare `ws` server that only parses the same frames,
 * interleaved with it in one run. Then the memory of that process over 100,000 messages.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import Database from "better-sqlite3";
import { WebSocketServer } from "ws";
import { buildServer, serverBuildIsStale } from "../scripts/build-server.ts";
import { waitFor } from "../test/support/wait.ts";
import { npmStartCommand, sleep, startBotChild } from "./bot-child.ts";
import { type Goal, interleaved, median, nextLine, round, spawnScript } from "./child.ts";
import { cpuMs, treeRss } from "./process-tree.ts";

const FLOOD = 20_000;
const GROUPS = 50;
const RUNS = 3;
const MEMORY_STEP = 50_000;
/** Quiet time before the bot's memory is read (see `rss` below). */
const SETTLE_MS = 15_000;
const WARM_UP = 1_000;

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

/** The floor: a bare `ws` server that parses the frames and counts the messages; the flood's rate. */
async function bareWs(): Promise<number> {
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
  try {
    const ms = await flood(`ws://127.0.0.1:${port}/`, FLOOD, 0, () => floodDone(() => parsed >= FLOOD));
    return (FLOOD / ms) * 1000;
  } finally {
    server.close();
  }
}

/** `npm start`'s process with default config: the flood's rate until every message is in SQLite. */
async function shipped(): Promise<number> {
  const bot = await startBotChild();
  const reader = new Database(join(bot.dataDir, "tsumugi.db"), { readonly: true });
  const stored = () => (reader.prepare("SELECT COUNT(*) AS n FROM messages").get() as { n: number }).n;
  try {
    const ms = await flood(`ws://127.0.0.1:${bot.port}/onebot/v11/ws`, FLOOD, 0, () =>
      floodDone(() => stored() >= FLOOD),
    );
    return (FLOOD / ms) * 1000;
  } finally {
    reader.close();
    await bot.stop();
  }
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
  if (serverBuildIsStale()) await buildServer();
  const run = await interleaved(RUNS, { tsumugi: shipped, bareWs });
  const rates = run.rounds.map((r) => r.tsumugi!);
  const ratios = run.rounds.map((r) => r.tsumugi! / r.bareWs!);
  const rate = median(rates);
  const ratio = round(median(ratios), 3);
  const measured = `npm start's process, median of ${RUNS} interleaved rounds, load ${run.loadAverage.before[0]} → ${run.loadAverage.after[0]}`;
  const goals: Goal[] = [
    {
      goal: "ingest msg/s until stored",
      target: "≥ 20,000",
      figure: Math.round(rate),
      measured,
      met: rate >= 20_000,
    },
    { goal: "ingest ÷ bare ws (parse only)", target: "reported", figure: ratio, measured, met: true },
  ];
  return {
    command: npmStartCommand().slice(1).join(" "),
    messages: FLOOD,
    groups: GROUPS,
    loadAverage: run.loadAverage,
    runs: rates.map((r) => Math.round(r)),
    bareWsRuns: run.rounds.map((r) => Math.round(r.bareWs!)),
    ratioRuns: ratios.map((r) => round(r, 3)),
    messagesPerSecond: Math.round(rate),
    target: 20_000,
    bareWsMessagesPerSecond: Math.round(median(run.rounds.map((r) => r.bareWs!))),
    ratioToBareWs: ratio,
    memory: await memoryOverMessages(),
    goals,
  };
}

/**
 * The memory footprint: the resident memory of the bot as `npm start` runs it (its own process, default
 * config and plugins) when idle after start, after 50,000 and after 100,000 flooded messages,
 * each read after the writes have landed and a short settle; a bare `node -e` in the same run.
 */
async function memoryOverMessages(): Promise<Record<string, number>> {
  if (serverBuildIsStale()) await buildServer();
  const bot = await startBotChild();
  const reader = new Database(join(bot.dataDir, "tsumugi.db"), { readonly: true });
  const stored = () => (reader.prepare("SELECT COUNT(*) AS n FROM messages").get() as { n: number }).n;
  const url = `ws://127.0.0.1:${bot.port}/onebot/v11/ws`;
  // Settled memory: V8 and the allocator give memory back some seconds after a burst, so
  // the lowest of one reading a second over SETTLE_MS of quiet.
  const rss = async () => {
    const readings: number[] = [];
    for (let second = 0; second < SETTLE_MS / 1000; second++) {
      await sleep(1000);
      readings.push(treeRss(bot.child.pid!).mb);
    }
    return Math.min(...readings);
  };
  try {
    const atStart = await rss();
    let total = 0;
    const floodTo = async (target: number) => {
      while (total < target) {
        const next = Math.min(target, total + FLOOD);
        await flood(url, next - total, total, () => floodDone(() => stored() >= next));
        total = next;
      }
    };
    await floodTo(WARM_UP);
    const warm = await rss();
    const cpuBefore = cpuMs(bot.child.pid!);
    await floodTo(MEMORY_STEP);
    const at50k = await rss();
    await floodTo(2 * MEMORY_STEP);
    const at100k = await rss();
    const cpuPerMessage = (cpuMs(bot.child.pid!) - cpuBefore) / (2 * MEMORY_STEP - WARM_UP);
    return {
      rssMbAtStart: round(atStart, 1),
      rssMbAt50k: round(at50k, 1),
      rssMbAt100k: round(at100k, 1),
      rssGrowthPercent50kTo100k: round(((at100k - at50k) / at50k) * 100, 1),
      // The footprint target: at most 10 % growth over 100,000 handled messages.
      rssGrowthPercentOver100k: round(((at100k - atStart) / atStart) * 100, 1),
      // The first messages load what any message needs once (compiled code, statements, buffers).
      rssMbAfterFirst1k: round(warm, 1),
      rssGrowthPercentAfterFirst1k: round(((at100k - warm) / warm) * 100, 1),
      botCpuMsPer1kMessages: round(cpuPerMessage * 1000, 1),
      nodeBaselineRssMb: round((await nodeBaselineRssMb()) ?? Number.NaN, 1),
    };
  } finally {
    reader.close();
    await bot.stop();
  }
}
