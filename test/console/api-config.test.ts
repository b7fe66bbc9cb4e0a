import { readFileSync, writeFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { apiClient } from "../support/api-client.ts";
import { startBot } from "../support/bot-harness.ts";
import { OneBotStandIn } from "../support/onebot-standin.ts";
import { ScriptedLlmServer } from "../support/scripted-llm-server.ts";
import { sleep } from "../support/wait.ts";

const TOKEN = "config-token";

async function eventually<T>(
  read: () => Promise<T>,
  accept: (value: T) => boolean,
  timeoutMs = 5_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (accept(value) || Date.now() > deadline) return value;
    await sleep(50);
  }
}

describe("config, first-run setup, models and connection through the API", () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function start(withModel: boolean, config: Record<string, unknown> = {}) {
    const llm = await ScriptedLlmServer.start();
    const bot = await startBot({
      ...(withModel ? { llm } : {}),
      configFile: true,
      config: { server: { token: TOKEN }, adapters: [{ id: "qq", accessToken: "onebot-secret" }], ...config },
    });
    cleanups.push(
      () => llm.close(),
      () => bot.dispose(),
    );
    return { llm, bot, api: apiClient(bot.baseUrl, TOKEN) };
  }

  it("shows the config with secrets hidden, saves an edit that keeps them, and reloads it", async () => {
    const { bot, api } = await start(true);
    const shown = await api.get("/api/config");
    expect(shown.body.editable).toBe(true);
    expect(shown.body.file).toBe(bot.configFile);
    expect(shown.body.schema.properties.monitor.properties.maxEvents.default).toBe(10_000);
    const yaml: string = shown.body.yaml;
    expect(yaml).not.toContain("test-key");
    expect(yaml).not.toContain(TOKEN);
    expect(yaml).not.toContain("onebot-secret");
    expect(yaml).toContain('apiKey: "********"');

    const edited = `${yaml}bot:\n  name: 小紬\n`;
    const saved = await api.put("/api/config", { yaml: edited });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({ saved: true, changedKeys: ["bot.name"], restartRequired: [] });
    const onDisk = readFileSync(bot.configFile!, "utf8");
    expect(onDisk).toContain("apiKey: test-key");
    expect(onDisk).toContain(`token: ${TOKEN}`);
    expect(onDisk).toContain("小紬");

    const status = await eventually(
      () => api.get("/api/status"),
      (answer) => answer.body.bot.name === "小紬",
    );
    expect(status.body.bot.name).toBe("小紬");
  });

  it("refuses a config with problems, naming the key, and leaves the file alone", async () => {
    const { bot, api } = await start(true);
    const before = readFileSync(bot.configFile!, "utf8");
    const answer = await api.put("/api/config", { yaml: "server:\n  port: 99999\nbot:\n  nmae: x\n" });
    expect(answer.status).toBe(400);
    expect(answer.body.problems).toEqual(
      expect.arrayContaining(["server.port: must be <= 65535", "bot.nmae: unknown key"]),
    );
    const broken = await api.put("/api/config", { yaml: "bot: [unclosed\n" });
    expect(broken.status).toBe(400);
    expect(broken.body.problems[0]).toContain(bot.configFile);
    const alias = await api.put("/api/config", { yaml: "bot:\n  name: *nowhere\n" });
    expect(alias.status).toBe(400);
    const moved = await api.put("/api/config", {
      yaml: 'llm:\n  providers:\n    - id: other\n      type: openai\n      apiKey: "********"\n',
    });
    expect(moved.status).toBe(400);
    expect(moved.body.problems).toEqual([
      "llm.providers[0].apiKey: hidden value has no saved value to keep; type it again",
    ]);
    expect(readFileSync(bot.configFile!, "utf8")).toBe(before);
  });

  it("first run: says no model is configured, tests a model, saves it, then answers", async () => {
    const { llm, bot, api } = await start(false);
    expect((await api.get("/api/status")).body.modelConfigured).toBe(false);
    expect((await api.get("/api/playground")).body.modelConfigured).toBe(false);

    llm.enqueue({ text: "OK" });
    const model = {
      type: "openai-compatible",
      baseUrl: llm.baseUrl,
      apiKey: "sk-first-run-key",
      model: "m1",
    };
    const tested = await api.post("/api/setup/test", model);
    expect(tested.body).toMatchObject({ ok: true, text: "OK" });
    expect(llm.requests[0]!.headers.authorization).toBe("Bearer sk-first-run-key");

    llm.enqueue({ status: 401, body: { error: { message: "invalid api key" } } });
    const failed = await api.post("/api/setup/test", { ...model, apiKey: "sk-wrong-key-123" });
    expect(failed.body.ok).toBe(false);
    expect(failed.body.error).toContain("invalid api key");
    expect(JSON.stringify(failed.body)).not.toContain("sk-wrong-key-123");

    const badUrl = await api.post("/api/setup/test", { ...model, baseUrl: "not a url" });
    expect(badUrl.status).toBe(400);
    expect(badUrl.body.problems[0]).toMatch(/^llm\.providers\[0\]\.baseUrl: /);

    const saved = await api.post("/api/setup/model", model);
    expect(saved.body).toEqual({ saved: true, file: bot.configFile });
    const onDisk = readFileSync(bot.configFile!, "utf8");
    expect(onDisk).toContain("sk-first-run-key");
    expect(onDisk).toContain("main/m1");
    expect(bot.logs.some((line) => JSON.stringify(line).includes("sk-first-run-key"))).toBe(false);

    const status = await eventually(
      () => api.get("/api/status"),
      (answer) => answer.body.modelConfigured === true,
    );
    expect(status.body.modelConfigured).toBe(true);
    const models = await api.get("/api/models");
    expect(models.body.tasks.planner).toEqual(["main/m1"]);
    expect(JSON.stringify(models.body)).not.toContain("sk-first-run-key");
    expect(JSON.stringify((await api.get("/api/config")).body)).not.toContain("sk-first-run-key");
  });

  it("tests configured models and reports token use per day, task and model with cost", async () => {
    const { llm, api } = await start(true, {
      llm: { prices: { "main/scripted-model": { input: 2, output: 8, currency: "CNY" } } },
    });
    const models = await api.get("/api/models");
    expect(models.body.providers).toEqual([
      { id: "main", type: "openai-compatible", baseUrl: llm.baseUrl, hasApiKey: true },
    ]);
    expect(models.body.tasks.planner).toEqual(["main/scripted-model"]);

    llm.enqueue({ text: "OK", usage: { promptTokens: 1_000, completionTokens: 500 } });
    const tested = await api.post("/api/models/test", { ref: "main/scripted-model" });
    expect(tested.body).toMatchObject({ ok: true, text: "OK" });
    expect((await api.post("/api/models/test", { ref: "ghost/model" })).status).toBe(404);
    expect((await api.post("/api/models/test", { ref: "no-slash" })).status).toBe(400);

    const usage = await api.get("/api/usage?days=7");
    expect(usage.body.currency).toBe("CNY");
    expect(usage.body.rows).toEqual([
      expect.objectContaining({
        day: new Date().toISOString().slice(0, 10),
        task: "test",
        model: "scripted-model",
        calls: 1,
        promptTokens: 1_000,
        completionTokens: 500,
        cost: 0.006,
      }),
    ]);
  });

  it("shows how to connect NapCat and whether an account is connected, the token hidden", async () => {
    const { bot, api } = await start(true);
    const before = await api.get("/api/connect");
    expect(before.body.adapters).toEqual([
      {
        id: "qq",
        mode: "reverse-ws",
        url: bot.wsUrl,
        apiUrl: null,
        // Masked as /api/config masks it: the token is in the config file, never in an answer.
        accessToken: "********",
        accounts: [],
      },
    ]);
    expect(JSON.stringify(before.body)).not.toContain("onebot-secret");
    const qq = new OneBotStandIn({ selfId: "10000", accessToken: "onebot-secret" });
    cleanups.push(() => qq.close());
    await qq.connectReverse(bot.wsUrl);
    const after = await eventually(
      () => api.get("/api/connect"),
      // Listed once connected, with its connection remembered (the Connect page's "last connected").
      (answer) => answer.body.adapters[0].accounts[0]?.lastConnectedAt !== undefined,
    );
    expect(after.body.adapters[0].accounts).toEqual([
      { id: "qq", selfId: "10000", connected: true, lastConnectedAt: expect.any(Number) },
    ]);
  });

  it("is read-only without a config file", async () => {
    const bot = await startBot({});
    cleanups.push(() => bot.dispose());
    const api = apiClient(bot.baseUrl);
    const shown = await api.get("/api/config");
    expect(shown.body).toMatchObject({ file: null, editable: false, yaml: "" });
    expect((await api.put("/api/config", { yaml: "" })).status).toBe(409);
    expect((await api.post("/api/setup/model", { type: "openai", model: "x" })).status).toBe(409);
  });

  it("keeps a file edited by hand in step: the next save works from what is on disk", async () => {
    const { bot, api } = await start(true);
    writeFileSync(bot.configFile!, `${readFileSync(bot.configFile!, "utf8")}bot:\n  persona: 手写的人设\n`);
    const shown = await eventually(
      () => api.get("/api/config"),
      (answer) => answer.body.yaml.includes("手写的人设"),
    );
    const saved = await api.put("/api/config", { yaml: shown.body.yaml });
    expect(saved.status).toBe(200);
    expect(readFileSync(bot.configFile!, "utf8")).toContain("apiKey: test-key");

    // A file broken by hand is not offered for editing, where a save could overwrite it blindly.
    writeFileSync(bot.configFile!, "bot: [broken\n");
    const broken = await api.get("/api/config");
    expect(broken.body).toMatchObject({ editable: false, yaml: "" });
    expect(broken.body.problems[0]).toContain("not valid YAML");
  });
});
