/**
 * Quote resolution and realtime windows (issue #4).
 *
 * 1. A full 20-node, 3-level forward tree (plus the quoted message) resolved against the
 *    OneBot stand-in over a real reverse WebSocket. Framework time is the resolution's wall
 *    time minus the time spent awaiting the stand-in's answers; it is checked against the
 *    same resolution with an in-process fetcher that answers instantly.
 * 2. Mention → reply latency through the whole bot with a zero-latency model, with batching
 *    off (windowMs 0) and with a quiet window: the window should add its quiet time, no more.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { startApp } from "../src/app.ts";
import { validateConfig } from "../src/config/validate.ts";
import { clockText } from "../src/context/clock-text.ts";
import type { QuoteSettings } from "../src/context/config.ts";
import { oneBotQuoteFetcher } from "../src/context/onebot-fetcher.ts";
import { formatQuoteContext } from "../src/context/quote-format.ts";
import { type QuoteSource, resolveQuote } from "../src/context/quote-resolver.ts";
import type { QuoteFetcher } from "../src/context/quote-types.ts";
import { createLogger } from "../src/log/logger.ts";
import { startOneBotHarness } from "../test/support/onebot-harness.ts";
import { OneBotStandIn } from "../test/support/onebot-standin.ts";
import { ScriptedLlmServer } from "../test/support/scripted-llm-server.ts";
import { percentile, round } from "./child.ts";

const WARMUP = 50;
const RESOLUTIONS = 300;
const TURNS = 30;
const QUIET_MS = 200;

const SETTINGS: QuoteSettings = {
  enabled: true,
  resolveForward: true,
  maxDepth: 2,
  maxNodes: 20,
  maxChars: 4000,
  timeoutMs: 10_000,
};

const silent = () => createLogger({ level: "silent" });
const devNull = () =>
  createLogger({ level: "info", destination: pino.destination({ dest: "/dev/null", sync: false }) });

export async function benchQuote(): Promise<Record<string, unknown>> {
  return { resolution: await benchResolution(), realtimeWindow: await benchWindowLatency() };
}

/** Depth 0: 4 messages; two of them forward 4 more each (depth 1); two of those forward 4 more (depth 2). */
function forwardTree(): Record<string, unknown> {
  const node = (id: number, text: string, nested?: string) => ({
    message_id: id,
    time: 1_717_200_000 + id,
    user_id: 40_000 + id,
    sender: { user_id: 40_000 + id, nickname: `成员${id}`, card: "" },
    message: [
      { type: "text", data: { text: `${text}：这是一条被转发的消息，内容长度和真实聊天差不多。` } },
      ...(nested ? [{ type: "forward", data: { id: nested } }] : []),
    ],
  });
  const list = (prefix: string, nested: (i: number) => string | undefined) => ({
    messages: [0, 1, 2, 3].map((i) => node(i, `${prefix}-${i}`, nested(i))),
  });
  return {
    TOP: list("top", (i) => (i < 2 ? `MID${i}` : undefined)),
    MID0: list("mid0", (i) => (i === 0 ? "LOW0" : undefined)),
    MID1: list("mid1", (i) => (i === 0 ? "LOW1" : undefined)),
    LOW0: list("low0", () => undefined),
    LOW1: list("low1", () => undefined),
  };
}

async function benchResolution(): Promise<Record<string, unknown>> {
  const harness = await startOneBotHarness({ mode: "reverse-ws" });
  const tree = forwardTree();
  for (const [id, data] of Object.entries(tree)) harness.standin.setForward(id, data);
  const quotedId = harness.standin.pushGroupMessage({
    groupId: "20000",
    userId: "10001",
    card: "张三",
    message: [{ type: "text", data: { text: "大家看看这个" } }],
  });
  const source: QuoteSource = { replyId: quotedId, forwardIds: ["TOP"] };
  const clock = clockText("Asia/Shanghai");
  const logger = silent();

  // The stand-in over the socket, with the time spent awaiting each answer added up.
  const wire = oneBotQuoteFetcher(harness.adapter, "10000");
  let awaitedMs = 0;
  const timed =
    <T>(call: () => Promise<T>) =>
    async () => {
      const started = performance.now();
      try {
        return await call();
      } finally {
        awaitedMs += performance.now() - started;
      }
    };
  const measured: QuoteFetcher = {
    getMessage: (id, timeoutMs) => timed(() => wire.getMessage(id, timeoutMs))(),
    getForward: (id, timeoutMs) => timed(() => wire.getForward(id, timeoutMs))(),
  };
  // The same answers, recorded once, handed back at once in-process.
  const recorded = { message: await wire.getMessage(quotedId, 1_000), forwards: new Map<string, unknown>() };
  for (const id of Object.keys(tree)) recorded.forwards.set(id, await wire.getForward(id, 1_000));
  const instant: QuoteFetcher = {
    getMessage: async () => recorded.message,
    getForward: async (id) => recorded.forwards.get(id),
  };

  const run = async (fetcher: QuoteFetcher) => {
    const quote = await resolveQuote(source, { fetcher, settings: SETTINGS, logger });
    return formatQuoteContext(quote!, clock);
  };
  const block = await run(instant);
  const nodes = block.split("\n").length - 2;
  const depths = new Set(
    block
      .split("\n")
      .map((line) => /^( *)- /.exec(line)?.[1]?.length)
      .filter(Boolean),
  );

  const wall: number[] = [];
  const framework: number[] = [];
  const inProcess: number[] = [];
  for (let i = 0; i < WARMUP + RESOLUTIONS; i++) {
    awaitedMs = 0;
    let started = performance.now();
    await run(measured);
    const total = performance.now() - started;
    started = performance.now();
    await run(instant);
    const instantMs = performance.now() - started;
    if (i < WARMUP) continue;
    wall.push(total);
    framework.push(total - awaitedMs);
    inProcess.push(instantMs);
  }
  await harness.close();
  return {
    nodes,
    levels: depths.size,
    calls: 1 + Object.keys(tree).length,
    resolutions: RESOLUTIONS,
    wallMsP50: round(percentile(wall, 50), 3),
    frameworkMsP50: round(percentile(framework, 50), 3),
    frameworkMsP99: round(percentile(framework, 99), 3),
    inProcessMsP50: round(percentile(inProcess, 50), 3),
    inProcessMsP99: round(percentile(inProcess, 99), 3),
    targetFrameworkMs: 1,
  };
}

/** p50 mention → reply latency through the whole bot with this realtime quiet time. */
async function replyLatency(windowMs: number): Promise<number> {
  const dataDir = mkdtempSync(join(tmpdir(), "tsumugi-bench-quote-"));
  const llm = await ScriptedLlmServer.start();
  const validation = validateConfig({
    server: { port: 0 },
    storage: { url: `sqlite:${join(dataDir, "tsumugi.db")}` },
    chat: { realtime: { windowMs, maxWindowMs: 10_000 } },
    // One user asks again and again, as fast as it can: the per-minute turn limits would refuse it.
    limits: { userTurnsPerMinute: 0, groupTurnsPerMinute: 0 },
    llm: {
      providers: [{ id: "zero", type: "openai-compatible", baseUrl: llm.baseUrl }],
      models: { planner: ["zero/m"], replyer: ["zero/m"] },
    },
  });
  if (!validation.ok) throw new Error(validation.problems.join("; "));
  const app = await startApp({ config: validation.config, logger: devNull() });
  const qq = new OneBotStandIn({ selfId: "10000" });
  await qq.connectReverse(`ws://127.0.0.1:${app.address.port}/onebot/v11/ws`);
  const latencies: number[] = [];
  for (let i = 0; i < TURNS + 3; i++) {
    llm.enqueue({ toolCalls: [{ name: "reply", arguments: {} }] }, { text: `第${i}条回复` });
    const started = performance.now();
    qq.pushGroupMessage({
      groupId: "20000",
      userId: "30001",
      message: [
        { type: "at", data: { qq: "10000" } },
        { type: "text", data: { text: ` 第${i}个问题` } },
      ],
    });
    await qq.waitForSent((sent) => sent.text === `第${i}条回复`, 10_000);
    if (i >= 3) latencies.push(performance.now() - started);
  }
  // The bot first, so the last send's answer is not cut off by the stand-in closing.
  await app.stop();
  await qq.close();
  await llm.close();
  rmSync(dataDir, { recursive: true, force: true });
  return percentile(latencies, 50);
}

async function benchWindowLatency(): Promise<Record<string, unknown>> {
  const withoutWindow = await replyLatency(0);
  const withWindow = await replyLatency(QUIET_MS);
  const added = withWindow - withoutWindow;
  return {
    turns: TURNS,
    quietMs: QUIET_MS,
    replyMsP50WithoutWindow: round(withoutWindow, 3),
    replyMsP50WithWindow: round(withWindow, 3),
    addedMs: round(added, 3),
    /** Timer lateness beyond the quiet time itself (setTimeout never fires early). */
    addedBeyondQuietMs: round(added - QUIET_MS, 3),
  };
}
