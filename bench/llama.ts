/**
 * The local model (issue #9) on the tiny generated GGUF, one thread: load time, generation
 * speed through Tsumugi (LLM client → queue → llama.cpp) against node-llama-cpp called
 * directly with the same prompt (the framework's overhead, target ≤ 5%), and the latency of a
 * whole turn (OneBot message → planner call under a grammar → replyer → send_group_msg).
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import pino from "pino";
import { startApp } from "../src/app.ts";
import { validateConfig } from "../src/config/validate.ts";
import type { LlamaCppProviderConfig } from "../src/llm/config.ts";
import { toChatHistory } from "../src/llm/llama-cpp/chat-history.ts";
import { LlamaRuntime } from "../src/llm/llama-cpp/llama-runtime.ts";
import { LlmClient } from "../src/llm/llm-client.ts";
import { createLogger } from "../src/log/logger.ts";
import { createLocalModelStack } from "../src/models/local-model-stack.ts";
import { OneBotStandIn } from "../test/support/onebot-standin.ts";
import { writeTinyGguf } from "../test/support/tiny-gguf.ts";
import { median, percentile, round } from "./child.ts";

const TOKENS = 512;
const ROUNDS = 25;
const TURNS = 10;
const PROMPT = "Alice(30001): 今天晚上大家一起打游戏吗？";

export async function benchLlama(): Promise<Record<string, unknown>> {
  const runtimeDir = resolve("data", "runtime");
  const runtime = new LlamaRuntime(runtimeDir);
  if (!runtime.installed())
    return { skipped: 'the runtime is not installed: run "npm run model -- runtime"' };
  const dir = mkdtempSync(join(tmpdir(), "tsumugi-bench-llama-"));
  const dataDir = join(dir, "data");
  mkdirSync(dataDir);
  symlinkSync(runtimeDir, join(dataDir, "runtime"), "dir");
  const modelPath = join(dir, "tiny.gguf");
  writeTinyGguf(modelPath, { favour: "rn" });
  try {
    // The first load in a process also initialises the native binding: warm it up once.
    await (await loadDirect(runtime, modelPath)).dispose();
    const framework = await loadThroughTsumugi(dataDir, modelPath);
    const direct = await loadDirect(runtime, modelPath);
    // Alternating calls, so drift (CPU clock, caches) affects both sides alike.
    const directMs: number[] = [];
    const tsumugiMs: number[] = [];
    for (let round = 0; round <= ROUNDS; round++) {
      const directTime = await timed(direct.generate);
      const tsumugiTime = await timed(framework.generate);
      if (round === 0) continue;
      directMs.push(directTime);
      tsumugiMs.push(tsumugiTime);
    }
    await direct.dispose();
    const status = await framework.close();
    return {
      modelBytes: status?.memory?.modelBytes,
      threads: 1,
      loadMsDirect: direct.loadMs,
      loadMsTsumugi: status?.loadMs,
      tokensPerCall: TOKENS,
      tokensPerSecondDirect: Math.round((TOKENS * 1000) / median(directMs)),
      tokensPerSecondTsumugi: Math.round((TOKENS * 1000) / median(tsumugiMs)),
      overheadPercent: round(((median(tsumugiMs) - median(directMs)) / median(directMs)) * 100, 1),
      targetOverheadPercent: 5,
      ...(await turnLatency(dataDir, modelPath)),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function timed(task: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await task();
  return performance.now() - start;
}

/** node-llama-cpp on its own, as a user of the library would call it. */
async function loadDirect(runtime: LlamaRuntime, modelPath: string) {
  const binding = await runtime.load();
  const started = performance.now();
  const llama = await binding.getLlama({
    gpu: false,
    build: "never",
    skipDownload: true,
    logLevel: "error",
    logger: () => {},
    maxThreads: 1,
  });
  const model = await llama.loadModel({ modelPath, gpuLayers: 0 });
  const context = await model.createContext({ contextSize: 4096, threads: 1, sequences: 1 });
  const chat = new binding.LlamaChat({ contextSequence: context.getSequence(), chatWrapper: "auto" });
  const loadMs = round(performance.now() - started, 1);
  const history = toChatHistory([{ role: "user", content: [{ type: "text", text: PROMPT }] }], []);
  return {
    loadMs,
    generate: () =>
      chat.generateResponse(history, { maxTokens: TOKENS, temperature: 0.7, stopOnAbortSignal: false }),
    async dispose() {
      chat.dispose();
      await context.dispose();
      await model.dispose();
      await llama.dispose();
    },
  };
}

/** The same model through the LLM client; the first call loads it. */
async function loadThroughTsumugi(dataDir: string, modelPath: string) {
  const logger = createLogger({ level: "silent" });
  const stack = createLocalModelStack(dataDir, logger);
  const provider: LlamaCppProviderConfig = {
    id: "local",
    type: "llama-cpp",
    model: modelPath,
    threads: 1,
    contextSize: 4096,
    gpu: false,
    timeoutMs: 60_000,
  };
  const client = new LlmClient({
    providers: [provider],
    localModels: stack.models,
    models: { replyer: ["local/tiny"] },
    usage: () => {},
    logger,
  });
  const generate = () =>
    client.generate({
      task: "replyer",
      messages: [{ role: "user", content: PROMPT }],
      maxOutputTokens: TOKENS,
    });
  await client.generate({
    task: "replyer",
    messages: [{ role: "user", content: PROMPT }],
    maxOutputTokens: 1,
  });
  return {
    generate,
    async close() {
      const [status] = stack.models.statuses();
      await stack.models.close();
      return status;
    },
  };
}

/** Whole turns, one after another, through the real app and a OneBot stand-in. */
async function turnLatency(dataDir: string, modelPath: string): Promise<Record<string, unknown>> {
  const validation = validateConfig({
    server: { port: 0 },
    storage: { url: `sqlite:${join(dataDir, "tsumugi.db")}` },
    chat: { realtime: { windowMs: 0 } },
    // One user asks again and again, as fast as it can: the per-minute turn limits would refuse it.
    limits: { userTurnsPerMinute: 0, groupTurnsPerMinute: 0 },
    plugins: { dirs: [] },
    llm: {
      providers: [
        { id: "local", type: "llama-cpp", model: modelPath, threads: 1, contextSize: 4096, gpu: false },
      ],
      models: { planner: ["local/tiny"], replyer: ["local/tiny"] },
    },
  });
  if (!validation.ok) throw new Error(validation.problems.join("; "));
  const logger = createLogger({
    level: "info",
    destination: pino.destination({ dest: "/dev/null", sync: false }),
  });
  const app = await startApp({ config: validation.config, logger });
  const qq = new OneBotStandIn({ selfId: "10000" });
  await qq.connectReverse(`ws://127.0.0.1:${app.address.port}/onebot/v11/ws`);
  const latencies: number[] = [];
  for (let turn = 0; turn <= TURNS; turn++) {
    const groupId = String(20_000 + turn);
    const start = performance.now();
    qq.pushGroupMessage({
      groupId,
      userId: "30001",
      message: [
        { type: "at", data: { qq: "10000" } },
        { type: "text", data: { text: ` ${PROMPT}` } },
      ],
    });
    await qq.waitForSent((sent) => sent.groupId === groupId, 60_000);
    // The first turn includes loading the model.
    latencies.push(performance.now() - start);
  }
  await qq.close();
  await app.stop();
  const [first, ...rest] = latencies;
  return {
    firstTurnMsWithLoad: round(first!, 1),
    turns: rest.length,
    turnMsP50: round(percentile(rest, 50), 1),
    turnMsP99: round(percentile(rest, 99), 1),
    replyTokensPerTurn: 1024,
  };
}
