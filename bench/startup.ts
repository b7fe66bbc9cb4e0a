/**
 * Start-up and idle footprint (issue #15): the compiled bot (`npm start`: node
 * dist/server/main.mjs) started RUNS times on a temp data folder with the default plugins, from
 * spawn to the first 200 from /healthz, then the resident memory of its whole process tree
 * (the bot and its plugin processes) once idle. Measured in the same run: the old way
 * (`tsx src/main.ts`, a transpiler at every start) and a bare `node -e` process as baseline.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { stringify } from "yaml";
import { buildServer, serverBuildIsStale } from "../scripts/build-server.ts";
import { median, round } from "./child.ts";
import { treeRss } from "./process-tree.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const RUNS = 5;
/** After /healthz answers: time for plugin processes to start and start-up garbage to settle. */
const IDLE_MS = 3_000;
const HEALTHZ_TIMEOUT_MS = 30_000;

const COMMANDS = {
  compiled: [process.execPath, join(ROOT, "dist/server/main.mjs")],
  tsx: [join(ROOT, "node_modules/.bin/tsx"), join(ROOT, "src/main.ts")],
};

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

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once("exit", () => resolve());
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One start: milliseconds to a healthy /healthz, then the idle tree's RSS. */
async function startOnce(command: string[]): Promise<{ readyMs: number; rssMb: number; processes: number }> {
  const dataDir = mkdtempSync(join(tmpdir(), "tsumugi-startup-"));
  const port = await freePort();
  const configFile = join(dataDir, "tsumugi.yaml");
  // The default config, but with its data folder and port in the temp folder, and the
  // project's plugin folder as `./plugins` is when started from the project.
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
  try {
    const url = `http://127.0.0.1:${port}/healthz`;
    while (!(await healthy(url))) {
      if (performance.now() - started > HEALTHZ_TIMEOUT_MS)
        throw new Error(`${command.join(" ")}: no /healthz`);
      if (child.exitCode !== null) throw new Error(`${command.join(" ")} exited with ${child.exitCode}`);
      await sleep(5);
    }
    const readyMs = performance.now() - started;
    await sleep(IDLE_MS);
    const { mb, processes } = treeRss(child.pid!);
    return { readyMs, rssMb: mb, processes };
  } finally {
    child.kill("SIGTERM");
    await exited(child);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function baselineRss(): Promise<number> {
  const child = spawn(process.execPath, ["-e", "setInterval(()=>{},1e9)"], { stdio: "ignore" });
  await sleep(1_000);
  const { mb } = treeRss(child.pid!);
  child.kill();
  await exited(child);
  return mb;
}

async function measure(command: string[]) {
  const runs = [];
  for (let run = 0; run < RUNS; run++) runs.push(await startOnce(command));
  return {
    readyMsMedian: Math.round(median(runs.map((r) => r.readyMs))),
    readyMsRuns: runs.map((r) => Math.round(r.readyMs)),
    idleTreeRssMbMedian: round(median(runs.map((r) => r.rssMb)), 1),
    processes: median(runs.map((r) => r.processes)),
  };
}

export async function benchStartup(): Promise<Record<string, unknown>> {
  if (serverBuildIsStale()) await buildServer();
  const baseline = [];
  for (let run = 0; run < RUNS; run++) baseline.push(await baselineRss());
  const compiled = await measure(COMMANDS.compiled);
  const tsx = await measure(COMMANDS.tsx);
  return {
    runs: RUNS,
    compiled,
    tsx,
    targetReadyMs: 1_000,
    targetIdleTreeRssMb: 120,
    nodeBaselineRssMb: round(median(baseline), 1),
    readyRatioCompiledToTsx: round(compiled.readyMsMedian / tsx.readyMsMedian),
  };
}
