// What a person sees at start-up (issue 42): readable log lines, one per event, also where stdout
// is not a terminal when TSUMUGI_LOG_FORMAT=pretty asks (pm2, nohup, docker logs); the
// migrations as one line; the next steps under the start-up line.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { nextSteps } from "../../src/app/next-steps.ts";
import { validateConfig } from "../../src/config/validate.ts";
import { openSqliteDatabase } from "../../src/store/sqlite/database.ts";
import { MIGRATIONS } from "../../src/store/sqlite/migrations.ts";
import { captureLog, makeTempDir } from "../support/store.ts";
import { waitFor } from "../support/wait.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const TSX_LOADER = pathToFileURL(join(ROOT, "node_modules/tsx/dist/loader.mjs")).href;

function configOf(input: Record<string, unknown>) {
  const result = validateConfig(input);
  if (!result.ok) throw new Error(result.problems.join("; "));
  return result.config;
}

describe("start-up lines", () => {
  const cleanups: Array<() => unknown> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it(
    "TSUMUGI_LOG_FORMAT=pretty writes readable lines, one per event, through a pipe; the migrations are one line",
    { timeout: 90_000 },
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "tsumugi-pretty-"));
      cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
      writeFileSync(join(dir, "tsumugi.yaml"), "server:\n  port: 0\n");
      const child: ChildProcess = spawn(
        process.execPath,
        ["--import", TSX_LOADER, join(ROOT, "src/main.ts"), "--config", "tsumugi.yaml"],
        {
          cwd: dir,
          env: { ...process.env, TSUMUGI_CONFIG: "", TSUMUGI_LOG_FORMAT: "pretty", NO_COLOR: "1" },
        },
      );
      cleanups.push(() => child.kill("SIGKILL"));
      let stdout = "";
      child.stdout!.on("data", (chunk) => {
        stdout += String(chunk);
      });
      await waitFor(() => stdout.includes("Tsumugi is running"), 60_000, "the start-up line");
      const lines = stdout.trim().split("\n");
      expect(lines.filter((line) => line.startsWith("{"))).toEqual([]);
      // Every line is one event: its time, level and message (fields on the same line).
      for (const line of lines) expect(line).toMatch(/^\[\d\d:\d\d:\d\d(\.\d+)?\] (\S+ )?[A-Z]+: /);
      expect(lines.filter((line) => line.includes("database created"))).toEqual([
        expect.stringContaining(`database created (${MIGRATIONS.length} migrations)`),
      ]);
      expect(stdout).not.toContain("applied database migration");
      // Not at a terminal: no next-steps banner in a log.
      expect(stdout).not.toContain("Next steps:");
    },
  );

  it("says how far an existing database was upgraded, in one line", () => {
    const dir = makeTempDir();
    cleanups.push(() => dir.remove());
    const file = join(dir.path, "tsumugi.db");
    openSqliteDatabase(file, captureLog().logger, MIGRATIONS.slice(0, 14)).close();
    const log = captureLog();
    openSqliteDatabase(file, log.logger).close();
    const info = log.lines.filter((line) => line.level === 30).map((line) => line.msg);
    expect(info).toContain(`database upgraded ${MIGRATIONS[13]!.version} → ${MIGRATIONS.at(-1)!.version}`);
  });

  it("lists the next steps: console, a model when none, the OneBot URL for NapCat, an @-mention", () => {
    const fresh = nextSteps(configOf({}), { host: "127.0.0.1", port: 6180 });
    expect(fresh).toBe(
      [
        "",
        "Next steps:",
        "  1. open the console: http://127.0.0.1:6180/",
        "  2. no model yet: open the console and choose one",
        "  3. in NapCat, add a WebSocket client (reverse WS): ws://127.0.0.1:6180/onebot/v11/ws, no token",
        "  4. @ the bot in a group, or message it privately",
        "",
        "",
      ].join("\n"),
    );
    const set = nextSteps(
      configOf({
        server: { host: "0.0.0.0", token: "t" },
        adapters: [{ type: "onebot", id: "napcat", mode: "reverse-ws", path: "/qq", accessToken: "x" }],
        llm: {
          providers: [
            { id: "main", type: "openai-compatible", baseUrl: "http://127.0.0.1:1/v1", apiKey: "k" },
          ],
          models: { planner: ["main/m"], replyer: ["main/m"] },
        },
      }),
      { host: "0.0.0.0", port: 7000 },
    );
    expect(set).not.toContain("no model yet");
    expect(set).toContain("http://127.0.0.1:7000/ (sign in with server.token)");
    expect(set).toContain('ws://127.0.0.1:7000/qq, token: the accessToken of adapter "napcat"');
  });
});
