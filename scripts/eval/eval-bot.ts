/**
 * The bot an eval talks to: the process `npm start` runs, on a throwaway data folder, with the
 * operator's config (or the scripted model) under the scenario's `config`, reached over the
 * real wire by the OneBot stand-in and followed through the console's live monitor stream.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { parse, stringify } from "yaml";
import { npmStartCommand } from "../../bench/bot-child.ts";
import { ConfigError, loadConfig } from "../../src/config/load.ts";
import type { Prices } from "../../src/llm/prices.ts";
import { isRecord } from "../../src/util/values.ts";
import { LogCapture } from "../../test/support/log-capture.ts";
import { OneBotStandIn } from "../../test/support/onebot-standin.ts";
import { openSse, type SseClient } from "../../test/support/sse-client.ts";
import { sleep } from "../../test/support/wait.ts";

/** The QQ account the bot is logged in as during an eval. */
export const EVAL_SELF_ID = "2000000001";
const DATABASE_FILE = "tsumugi.db";
const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 12_000;

export interface EvalBotOptions {
  /** The operator's config file; absent, only `base` (the scripted model) and defaults. */
  configFile?: string;
  base: Record<string, unknown>;
  /** The scenario's `config`, merged over the rest. */
  scenarioConfig: Record<string, unknown>;
  /** Fills the bot's new database (a replay's cached picture descriptions) before it starts. */
  seed?: (databaseFile: string) => void;
  /** The QQ account the bot is logged in as; default EVAL_SELF_ID (a replay: the live bot's). */
  selfId?: string;
}

export interface EvalBot {
  baseUrl: string;
  qq: OneBotStandIn;
  /** Every event of the console's monitor stream since start. */
  monitor: SseClient;
  /** How long a quiet chat stays open for more messages (`chat.realtime.windowMs`). */
  batchWindowMs: number;
  /** The config's `llm.prices`, to price the calls its monitor events report. */
  prices: Prices;
  /** Disconnects QQ, stops the bot and deletes its data folder; later calls wait for the first. */
  stop(): Promise<void>;
}

/** Checks the config (a problem names the file and key), starts the bot and connects QQ to it. */
export async function startEvalBot(options: EvalBotOptions): Promise<EvalBot> {
  const dataDir = mkdtempSync(join(tmpdir(), "tsumugi-eval-"));
  try {
    const configFile = join(dataDir, "tsumugi.yaml");
    writeFileSync(configFile, stringify(evalConfig(options, dataDir)), { mode: 0o600 });
    const loaded = checkedConfig(configFile, options.configFile);
    options.seed?.(join(dataDir, DATABASE_FILE));
    const child = spawnBot(configFile);
    const stop = () => stopBot(child, dataDir);
    try {
      const baseUrl = await runningUrl(child);
      const monitor = await openSse(`${baseUrl}/api/monitor/stream`, {});
      const qq = new OneBotStandIn({ selfId: options.selfId ?? EVAL_SELF_ID, nickname: loaded.bot.name });
      await qq.connectReverse(`${baseUrl.replace(/^http/, "ws")}/onebot/v11/ws`);
      await waitForConnected(baseUrl);
      let stopping: Promise<void> | undefined;
      return {
        baseUrl,
        qq,
        monitor,
        batchWindowMs: loaded.chat.realtime.windowMs,
        prices: loaded.llm.prices,
        stop() {
          stopping ??= (async () => {
            monitor.close();
            await qq.close();
            await stop();
          })();
          return stopping;
        },
      };
    } catch (error) {
      await stop();
      throw error;
    }
  } catch (error) {
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
}

/**
 * The config file the eval's bot runs from: the operator's (or `base`), the scenario's
 * `config`, then what an eval needs: its own storage and loopback port, one reverse-WebSocket
 * adapter without token, no cluster. `prompts.dir` stays relative to the operator's file.
 */
function evalConfig(options: EvalBotOptions, dataDir: string): Record<string, unknown> {
  const operator = options.configFile ? readYaml(options.configFile) : options.base;
  const merged = mergeDeep(operator, options.scenarioConfig);
  const prompts = merged.prompts;
  if (options.configFile && isRecord(prompts) && typeof prompts.dir === "string" && !isAbsolute(prompts.dir))
    prompts.dir = resolve(dirname(options.configFile), prompts.dir);
  delete merged.cluster;
  return mergeDeep(merged, {
    server: { host: "127.0.0.1", port: 0, token: "" },
    storage: { url: `sqlite:${join(dataDir, DATABASE_FILE)}` },
    adapters: [{ type: "onebot", id: "qq", mode: "reverse-ws", path: "/onebot/v11/ws" }],
  });
}

function readYaml(file: string): Record<string, unknown> {
  const value: unknown = parse(readFileSync(file, "utf8"));
  if (value === null || value === undefined) return {};
  if (!isRecord(value)) throw new Error(`${file}: the config must be a YAML mapping`);
  return value;
}

function checkedConfig(configFile: string, label: string | undefined) {
  try {
    const { config } = loadConfig({ file: configFile, env: process.env, cwd: process.cwd() });
    if ((config.llm.models.planner ?? []).length === 0)
      throw new Error(`${label ?? "config"}: no planner model configured (llm.models.planner)`);
    return config;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    const where = label ?? "the scenario's config";
    throw new Error(error.problems.map((problem) => `${where}: ${problem}`).join("\n"));
  }
}

function spawnBot(configFile: string): ChildProcess {
  const [executable, ...args] = npmStartCommand() as [string, ...string[]];
  return spawn(executable, [...args, "--config", configFile], {
    env: { ...process.env, TSUMUGI_CONFIG: "", TSUMUGI_LOG_FORMAT: "json" },
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/** Waits for the start-up log line; its url is where the bot listens. */
async function runningUrl(child: ChildProcess): Promise<string> {
  const logs = new LogCapture();
  let output = "";
  let pending = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    pending += chunk.toString("utf8");
    const lines = pending.split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) {
      try {
        logs.push(JSON.parse(line));
      } catch {
        output += `${line}\n`;
      }
    }
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString("utf8");
  });
  const exited = new Promise<never>((_resolve, reject) =>
    child.once("exit", (code) =>
      reject(new Error(`the bot exited during start-up (code ${code}):\n${output}`)),
    ),
  );
  const running = await Promise.race([
    logs.waitFor(
      (line) => line.msg.startsWith("Tsumugi is running") && typeof line.url === "string",
      START_TIMEOUT_MS,
    ),
    exited,
  ]);
  return String(running.url).replace(/\/$/, "");
}

async function waitForConnected(baseUrl: string): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const health = (await (await fetch(`${baseUrl}/healthz`)).json()) as {
      adapters?: Array<{ connected?: boolean }>;
    };
    if (health.adapters?.some((adapter) => adapter.connected)) return;
    await sleep(20);
  }
  throw new Error("the OneBot stand-in never showed as connected in /healthz");
}

async function stopBot(child: ChildProcess, dataDir: string): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((done) => child.once("exit", done));
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  }
  rmSync(dataDir, { recursive: true, force: true });
}

/** `over` merged into a copy of `base`: mappings key by key, anything else replaced. */
function mergeDeep(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = structuredClone(base);
  for (const [key, value] of Object.entries(over)) {
    const current = out[key];
    out[key] = isRecord(current) && isRecord(value) ? mergeDeep(current, value) : structuredClone(value);
  }
  return out;
}
