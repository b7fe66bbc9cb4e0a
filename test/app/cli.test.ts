import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { waitFor } from "../support/wait.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const MAIN = join(ROOT, "src/main.ts");
const TSX = join(ROOT, "node_modules/.bin/tsx");

interface Run {
  child: ChildProcess;
  stdout: string;
  stderr: string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function run(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Run {
  // A process group of its own: tsx runs the bot in a child of its own, which a kill of tsx
  // alone would leave running (holding port 6180 for the next run).
  const child = spawn(TSX, [MAIN, ...args], {
    cwd,
    env: { ...process.env, ...env, TSUMUGI_CONFIG: "" },
    detached: true,
  });
  const result: Run = {
    child,
    stdout: "",
    stderr: "",
    exit: new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal }))),
  };
  child.stdout?.on("data", (chunk) => {
    result.stdout += String(chunk);
  });
  child.stderr?.on("data", (chunk) => {
    result.stderr += String(chunk);
  });
  return result;
}

describe("the tsumugi command", () => {
  const dirs: string[] = [];
  const children: ChildProcess[] = [];
  const tempDir = () => {
    const dir = mkdtempSync(join(tmpdir(), "tsumugi-cli-"));
    dirs.push(dir);
    return dir;
  };

  afterEach(() => {
    for (const child of children.splice(0)) {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      } catch {
        // Already gone with its group.
      }
    }
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it("exits 2 with one line per problem naming the key, never a stack trace", async () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, "bad.yaml"),
      "server:\n  port: 70000\nllm:\n  providers:\n    - id: main\n      type: openai-compatible\n      baseUrl: not a url\n",
    );
    const result = run(["--config", "bad.yaml"], dir);
    const { code } = await result.exit;
    expect(code).toBe(2);
    const lines = result.stderr.trim().split("\n");
    expect(lines).toContain("server.port: must be <= 65535");
    expect(lines).toContain("llm.providers[0].baseUrl: must be a URL");
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it("refuses a non-loopback host without a token", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "tsumugi.yaml"), "server:\n  host: 0.0.0.0\n");
    const result = run([], dir);
    expect((await result.exit).code).toBe(2);
    expect(result.stderr).toContain("server.token:");
  });

  it("runs on the built-in defaults, serves /healthz, and exits 0 on SIGTERM", async () => {
    const dir = tempDir();
    const result = run([], dir);
    children.push(result.child);
    await waitFor(() => result.stdout.includes("Tsumugi is running"), 15_000, "the start-up banner");
    const health = await fetch("http://127.0.0.1:6180/healthz");
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({
      status: "ok",
      adapters: [{ id: "qq", connected: false }],
      storage: { state: "ok", spooled: 0, dropped: 0 },
    });
    expect(existsSync(join(dir, "data/tsumugi.db"))).toBe(true);
    const stopping = Date.now();
    result.child.kill("SIGTERM");
    const { code } = await result.exit;
    expect(code).toBe(0);
    expect(Date.now() - stopping).toBeLessThan(10_000);
    expect(result.stdout).toContain('"msg":"stopped"');
  });

  it("reads the file given with --config and TSUMUGI_CONFIG", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "my.yaml"), "server:\n  port: 0\nbot:\n  name: 小紬\n");
    const viaFlag = run(["--config", "my.yaml"], dir);
    children.push(viaFlag.child);
    await waitFor(() => viaFlag.stdout.includes("Tsumugi is running"), 15_000, "the start-up banner");
    expect(viaFlag.stdout).not.toContain("127.0.0.1:6180");
    viaFlag.child.kill("SIGINT");
    expect((await viaFlag.exit).code).toBe(0);

    const missing = spawn(TSX, [MAIN], { cwd: dir, env: { ...process.env, TSUMUGI_CONFIG: "nope.yaml" } });
    let stderr = "";
    missing.stderr.on("data", (chunk) => {
      stderr += String(chunk);
    });
    const code = await new Promise((resolve) => missing.once("exit", resolve));
    expect(code).toBe(2);
    expect(stderr).toContain("nope.yaml: config file not found");
  });
});
