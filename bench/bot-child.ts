/**
 * The bot as users run it, in its own process: `npm start`'s command (read from package.json,
 * node flags included) or another command line, on a temp data folder and a free port with
 * otherwise default config. Used where the figure is the process's own (start-up, memory).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { stringify } from "yaml";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const HEALTHZ_TIMEOUT_MS = 30_000;

/** `npm start` as an argv: its `node` is this node; paths are relative to the project. */
export function npmStartCommand(): string[] {
  const scripts = (
    JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: { start: string } }
  ).scripts;
  const [node, ...args] = scripts.start.split(/\s+/);
  if (node !== "node") throw new Error(`npm start does not run node: ${scripts.start}`);
  return [process.execPath, ...args.map((arg) => (arg.startsWith("-") ? arg : join(ROOT, arg)))];
}

export interface BotChild {
  child: ChildProcess;
  port: number;
  dataDir: string;
  /** Milliseconds from spawn to the first 200 from /healthz. */
  readyMs: number;
  stop(): Promise<void>;
}

/** Starts the bot with `command` and waits for /healthz; the project's plugins as `./plugins`. */
export async function startBotChild(command: string[]): Promise<BotChild> {
  const dataDir = mkdtempSync(join(tmpdir(), "tsumugi-bench-bot-"));
  const port = await freePort();
  const configFile = join(dataDir, "tsumugi.yaml");
  writeFileSync(
    configFile,
    stringify({
      server: { port },
      storage: { url: `sqlite:${join(dataDir, "tsumugi.db")}` },
      plugins: { dirs: [join(ROOT, "plugins")] },
    }),
  );
  const [executable, ...args] = command as [string, ...string[]];
  const started = performance.now();
  const child = spawn(executable, [...args, "--config", configFile], {
    cwd: dataDir,
    env: { ...process.env, TSUMUGI_CONFIG: "" },
    stdio: "ignore",
  });
  const stop = async () => {
    child.kill("SIGTERM");
    await exited(child);
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const url = `http://127.0.0.1:${port}/healthz`;
    while (!(await healthy(url))) {
      if (performance.now() - started > HEALTHZ_TIMEOUT_MS)
        throw new Error(`${command.join(" ")}: no /healthz`);
      if (child.exitCode !== null) throw new Error(`${command.join(" ")} exited with ${child.exitCode}`);
      await sleep(5);
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { child, port, dataDir, readyMs: performance.now() - started, stop };
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
