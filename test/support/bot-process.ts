/**
 * Runs the bot as its own process through the real command line (`src/main.ts --config FILE`
 * under tsx's loader), for what only a process can show: a SIGKILL mid-turn, a restart on the same
 * database, a file locked by another process. Logs are read from its stdout (JSON lines); its
 * monitor is out of reach, so tests wait on what its HTTP surface answers (bot-api.ts) or on
 * what the OneBot stand-in receives.
 *
 *   const bot = await startBotProcess({ llm });
 *   await qq.connectReverse(bot.wsUrl);
 *   bot.kill("SIGKILL");
 *   const again = await startBotProcess({ llm, dataDir: bot.dataDir });
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { stringify } from "yaml";
import { harnessConfig } from "./bot-harness.ts";
import { LogCapture, type LogLine } from "./log-capture.ts";
import type { ScriptedLlmServer } from "./scripted-llm-server.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
// Node with tsx's loader, not the tsx command: the command runs the bot in a child process of
// its own, so a SIGKILL would kill only the wrapper and leave the bot running.
const TSX_LOADER = pathToFileURL(join(ROOT, "node_modules/tsx/dist/loader.mjs")).href;
const MAIN = join(ROOT, "src/main.ts");
/** What `npm start` runs (scripts/build-server.ts builds it). */
const COMPILED_MAIN = join(ROOT, "dist/server/main.mjs");

export interface BotProcessOptions {
  llm?: ScriptedLlmServer;
  /** Merged over the harness defaults (see harnessConfig). */
  config?: Record<string, unknown>;
  /** Reuse a data folder (restart tests); the config file is rewritten there. */
  dataDir?: string;
  /** Run the compiled build with plain node, as `npm start` does (the caller makes sure it is built). */
  compiled?: boolean;
  /** Extra environment variables for the process. */
  env?: NodeJS.ProcessEnv;
  /** Run as this user (the test runs as root): what a folder another user owns does to it. */
  user?: { uid: number; gid: number };
  /** How long to wait for the bot to say it is running. Default 20 s. */
  startTimeoutMs?: number;
}

export interface BotProcess {
  child: ChildProcess;
  /** `http://127.0.0.1:<port>` */
  baseUrl: string;
  /** The reverse WebSocket url of the default adapter. */
  wsUrl: string;
  dataDir: string;
  configFile: string;
  logs: LogLine[];
  /** Non-JSON output (stderr, and stdout lines that are not log lines). */
  readonly otherOutput: string;
  /** Resolves when the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Sends a signal (SIGKILL for a crash) and waits for the exit. */
  kill(signal: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGKILLs a process still running and deletes the data folder unless it was given. */
  dispose(): Promise<void>;
}

/** Writes the config into the data folder and starts `main.ts --config` there. */
async function spawnBot(
  options: BotProcessOptions,
): Promise<{ child: ChildProcess; dataDir: string; configFile: string }> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), "tsumugi-proc-"));
  const configFile = join(dataDir, "tsumugi.yaml");
  writeFileSync(configFile, stringify(await harnessConfig(dataDir, options.llm, options.config)));
  const entry = options.compiled ? [COMPILED_MAIN] : ["--import", TSX_LOADER, MAIN];
  const child = spawn(process.execPath, [...entry, "--config", configFile], {
    cwd: dataDir,
    env: { ...process.env, TSUMUGI_CONFIG: "", ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
    ...options.user,
  });
  return { child, dataDir, configFile };
}

/**
 * Starts the bot on a config it must refuse and waits for it to exit: its exit code (null when
 * it was still running after `startTimeoutMs` and had to be killed) and its stderr lines.
 */
export async function runRefusedBotProcess(
  options: BotProcessOptions = {},
): Promise<{ code: number | null; stderrLines: string[] }> {
  const { child, dataDir } = await spawnBot(options);
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), options.startTimeoutMs ?? 20_000);
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  clearTimeout(timer);
  if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
  return { code, stderrLines: stderr.trim().split("\n") };
}

export async function startBotProcess(options: BotProcessOptions = {}): Promise<BotProcess> {
  const { child, dataDir, configFile } = await spawnBot(options);
  const logs = new LogCapture();
  let otherOutput = "";
  let pending = "";
  child.stdout!.on("data", (chunk: Buffer) => {
    pending += chunk.toString("utf8");
    let end = pending.indexOf("\n");
    while (end !== -1) {
      const line = pending.slice(0, end);
      pending = pending.slice(end + 1);
      try {
        logs.push(JSON.parse(line) as LogLine);
      } catch {
        otherOutput += `${line}\n`;
      }
      end = pending.indexOf("\n");
    }
  });
  child.stderr!.on("data", (chunk: Buffer) => {
    otherOutput += chunk.toString("utf8");
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  const running = await Promise.race([
    // Adapter lines carry a `url` too (an HTTP-mode API being probed): the start-up line is the one.
    logs.waitFor(
      (line) => line.msg.startsWith("Tsumugi is running") && typeof line.url === "string",
      options.startTimeoutMs ?? 20_000,
    ),
    exited.then((exit) => {
      throw new Error(`the bot exited during start-up (${JSON.stringify(exit)}):\n${otherOutput}`);
    }),
  ]);
  const baseUrl = String(running.url).replace(/\/$/, "");
  const kill = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    return exited;
  };
  return {
    child,
    baseUrl,
    wsUrl: `${baseUrl.replace(/^http/, "ws")}/onebot/v11/ws`,
    dataDir,
    configFile,
    logs: logs.lines,
    get otherOutput() {
      return otherOutput;
    },
    exited,
    kill,
    async dispose() {
      await kill("SIGKILL");
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
