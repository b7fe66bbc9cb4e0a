import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { OneBotStandIn } from "../support/onebot-standin.ts";
import { QqOfficialStandIn } from "../support/qq-official-standin.ts";
import { ScriptedLlmServer } from "../support/scripted-llm-server.ts";
import { freePort } from "../support/server-process.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const TSX_LOADER = pathToFileURL(join(ROOT, "node_modules/tsx/dist/loader.mjs")).href;
const DOCTOR = join(ROOT, "scripts/doctor.ts");
const SELF = "10000";
const APP_ID = "102000000";
const APP_SECRET = "qqbot-app-secret";

/** Runs `npm run doctor -- --config FILE` as the operator would, without npm's own output. */
function runDoctor(config: Record<string, unknown>, dir: string): Promise<{ code: number; lines: string[] }> {
  const file = join(dir, "tsumugi.yaml");
  writeFileSync(file, stringify(config));
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--import", TSX_LOADER, DOCTOR, "--config", file],
      { cwd: dir, env: { ...process.env, TSUMUGI_CONFIG: "" }, timeout: 60_000 },
      (error, stdout) => {
        const code = error ? Number((error as { code?: number }).code ?? 1) : 0;
        resolve({ code, lines: stdout.trim().split("\n") });
      },
    );
  });
}

describe("npm run doctor", () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function scene() {
    const dir = mkdtempSync(join(tmpdir(), "tsumugi-doctor-"));
    const napcat = new OneBotStandIn({ selfId: SELF, accessToken: "napcat-token" });
    const napcatUrl = await napcat.listenHttp();
    const platform = await QqOfficialStandIn.start({ appId: APP_ID, secret: APP_SECRET });
    cleanups.push(
      () => rmSync(dir, { recursive: true, force: true }),
      () => napcat.close(),
      () => platform.close(),
    );
    const config = (onebotToken: string, appSecret: string, modelBaseUrl: string) => ({
      server: { port: 0 },
      storage: { url: `sqlite:${join(dir, "tsumugi.db")}` },
      adapters: [
        { type: "onebot", id: "napcat", mode: "http", url: napcatUrl, accessToken: onebotToken },
        { type: "qq-official", id: "qqbot", appId: APP_ID, secret: appSecret, tokenUrl: platform.tokenUrl },
      ],
      llm: {
        providers: [
          { id: "main", type: "openai-compatible", baseUrl: modelBaseUrl, apiKey: "k", maxRetries: 0 },
        ],
        models: { planner: ["main/chat-model"], replyer: ["main/chat-model"] },
      },
    });
    return { dir, config };
  }

  it("names a wrong OneBot token, a refused AppSecret and an unreachable model, one line each, and exits 1", async () => {
    const { dir, config } = await scene();
    const closedPort = await freePort();
    const { code, lines } = await runDoctor(
      config("wrong-token", "wrong-secret", `http://127.0.0.1:${closedPort}/v1`),
      dir,
    );
    expect(code).toBe(1);
    const problems = lines.filter((line) => line.startsWith("✗"));
    expect(problems).toHaveLength(3);
    expect(problems[0]).toMatch(
      /^✗ adapters\[0\]\.accessToken: refused by the OneBot implementation .*HTTP 403/,
    );
    expect(problems[1]).toMatch(
      /^✗ adapters\[1\]\.secret: the token endpoint refused AppID 102000000 .*invalid appid or secret/,
    );
    expect(problems[2]).toMatch(
      /^✗ llm\.models\.planner: main\/chat-model does not answer .*check llm\.providers "main"/,
    );
    expect(lines.at(-1)).toBe("3 problem(s) to fix");
  }, 60_000);

  it("exits 0 when the account, the platform and the model all answer", async () => {
    const { dir, config } = await scene();
    const llm = await ScriptedLlmServer.start();
    cleanups.push(() => llm.close());
    llm.enqueue({ text: "OK" });
    const { code, lines } = await runDoctor(config("napcat-token", APP_SECRET, llm.baseUrl), dir);
    expect(lines).toContain(`✓ adapters[0] (napcat): QQ ${SELF} connected and online`);
    expect(lines).toContain(`✓ adapters[1] (qqbot): AppID ${APP_ID} receives access tokens`);
    expect(lines).toContain("✓ llm.models.planner: main/chat-model answers");
    expect(lines.filter((line) => line.startsWith("✗"))).toEqual([]);
    expect(code).toBe(0);
  }, 60_000);
});
