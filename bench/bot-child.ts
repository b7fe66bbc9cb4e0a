/**
 * The bot as users run it, in its own process: `npm start`'s command (read from package.json,
 * node flags included: the compiled dist/server/main.mjs), on a temp data folder and a free port,
 * its log lines (info, JSON, as under systemd, pm2 or Docker) appended to a file in that folder.
 * Every bench figure a user would read starts the bot this one way.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { stringify } from "yaml";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const HEALTHZ_TIMEOUT_MS = 30_000;
const BUNDLE = "dist/server/main.mjs";

/** `npm start`'s script split into node flags and the bundle it runs. */
function startScript(): { flags: string[]; bundle: string } {
  const scripts = (
    JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: { start: string } }
  ).scripts;
  const [node, ...args] = scripts.start.split(/\s+/);
  if (node !== "node") throw new Error(`npm start does not run node: ${scripts.start}`);
  const bundle = args.find((arg) => !arg.startsWith("-"));
  if (bundle !== BUNDLE) throw new Error(`npm start does not run ${BUNDLE}: ${scripts.start}`);
  return { flags: args.filter((arg) => arg.startsWith("-")), bundle };
}

/** The node flags `npm start` passes (package.json). */
export function npmStartFlags(): string[] {
  return startScript().flags;
}

/**
 * `npm start` as an argv: its `node` is this node. `flags` replaces its node flags (a bench
 * row measuring what a flag costs); `checkout` runs another checkout's bundle (built there).
 */
export function npmStartCommand(options: { flags?: string[]; checkout?: string } = {}): string[] {
  const { flags, bundle } = startScript();
  return [process.execPath, ...(options.flags ?? flags), join(options.checkout ?? ROOT, bundle)];
}

/**
 * Node flag sets to measure beside npm start's own, as extra rows named `flags <set>`:
 * TSUMUGI_BENCH_FLAGS="a b;c;" gives one per `;`-separated set (an empty one: no flags); by
 * default one row without node flags, the cost of the memory flags.
 */
export function flagVariants(): Record<string, string[]> {
  const sets = process.env.TSUMUGI_BENCH_FLAGS?.split(";").map((set) => set.trim()) ?? [""];
  return Object.fromEntries(sets.map((set) => [`flags ${set || "(none)"}`, set ? set.split(/\s+/) : []]));
}

export interface BotChild {
  child: ChildProcess;
  port: number;
  dataDir: string;
  /** The file its stdout and stderr (the log lines) are appended to. */
  logFile: string;
  /** Milliseconds from spawn to the first 200 from /healthz. */
  readyMs: number;
  /** Bytes written to the log file so far. */
  logBytes(): number;
  stop(): Promise<void>;
}

export interface BotChildOptions {
  /** The command line (default: `npm start`'s). */
  command?: string[];
  /** Top-level config keys over the bench's (server port, SQLite in the temp folder, ./plugins). */
  config?: Record<string, unknown>;
  /** Extra node flags before the command's own (e.g. --cpu-prof). */
  extraFlags?: string[];
}

/** Starts the bot and waits for /healthz; the project's plugins as `./plugins` unless `config` says otherwise. */
export async function startBotChild(options: BotChildOptions = {}): Promise<BotChild> {
  const dataDir = mkdtempSync(join(tmpdir(), "tsumugi-bench-bot-"));
  const port = await freePort();
  const configFile = join(dataDir, "tsumugi.yaml");
  writeFileSync(
    configFile,
    stringify({
      server: { port },
      storage: { url: `sqlite:${join(dataDir, "tsumugi.db")}` },
      plugins: { dirs: [join(ROOT, "plugins")] },
      ...options.config,
    }),
  );
  const logFile = join(dataDir, "tsumugi.log");
  const log = openSync(logFile, "a");
  const [executable, ...args] = (options.command ?? npmStartCommand()) as [string, ...string[]];
  const started = performance.now();
  const child = spawn(executable, [...(options.extraFlags ?? []), ...args, "--config", configFile], {
    cwd: dataDir,
    env: { ...process.env, TSUMUGI_CONFIG: "" },
    stdio: ["ignore", log, log],
  });
  closeSync(log);
  const stop = async () => {
    child.kill("SIGTERM");
    await exited(child);
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const url = `http://127.0.0.1:${port}/healthz`;
    while (!(await healthy(url))) {
      if (performance.now() - started > HEALTHZ_TIMEOUT_MS) throw new Error(`${args.join(" ")}: no /healthz`);
      if (child.exitCode !== null)
        throw new Error(`${args.join(" ")} exited with ${child.exitCode}: ${readFileSync(logFile, "utf8")}`);
      await sleep(5);
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    child,
    port,
    dataDir,
    logFile,
    readyMs: performance.now() - started,
    logBytes: () => statSync(logFile).size,
    stop,
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function healthy(url: string): Promise<boolean> {
  try {
    return (await fetch(url)).status === 200;
  } catch {
    return false;
  }
}

export function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once("exit", () => resolve());
  });
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
