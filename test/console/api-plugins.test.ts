import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { PluginSandbox } from "../plugins/plugin-fixtures.ts";
import { type ApiClient, apiClient } from "../support/api-client.ts";
import { type BotHarness, startBot } from "../support/bot-harness.ts";
import { ScriptedLlmServer } from "../support/scripted-llm-server.ts";
import { openSse } from "../support/sse-client.ts";
import { waitFor } from "../support/wait.ts";
import { WEATHER_MANIFEST, WEATHER_PLUGIN } from "./weather-plugin.ts";

const TOKEN = "plugins-token";

describe("plugins through the console API", () => {
  let sandbox: PluginSandbox;
  let llm: ScriptedLlmServer;
  let bot: BotHarness;
  let api: ApiClient;

  beforeAll(async () => {
    sandbox = new PluginSandbox();
    sandbox.add("weather", { "index.ts": WEATHER_PLUGIN }, WEATHER_MANIFEST);
    llm = await ScriptedLlmServer.start();
    bot = await startBot({
      llm,
      configFile: true,
      config: { server: { token: TOKEN }, plugins: { dirs: [sandbox.root] } },
    });
    api = apiClient(bot.baseUrl, TOKEN);
  });
  afterAll(async () => {
    await bot.dispose();
    await llm.close();
    sandbox.remove();
  });

  const ask = async () => {
    llm.enqueue({ toolCalls: [{ name: "no_reply", arguments: { reason: "测试" } }] });
    const before = llm.requests.length;
    await api.post("/api/playground/messages", {
      chatType: "private",
      userId: "30001",
      senderName: "Alice",
      segments: [{ type: "text", data: { text: "天气？" } }],
    });
    await waitFor(() => llm.requests.length > before, 5_000, "the model was asked");
    return llm.requests.at(-1)!;
  };
  const fileSettings = () =>
    (parse(readFileSync(bot.configFile!, "utf8")) as { plugins: Record<string, unknown> }).plugins;

  it("lists plugins with their components, state and config schema", async () => {
    const answer = await api.get("/api/plugins");
    expect(answer.body.persistent).toBe(true);
    const [weather] = answer.body.plugins;
    expect(weather).toMatchObject({
      id: "weather",
      name: "Weather",
      state: "enabled",
      runtime: "node",
      config: { units: "c", max_cities: 3 },
      configSchema: WEATHER_MANIFEST.config,
    });
    expect(weather.components).toEqual([
      expect.objectContaining({ kind: "tool", fullName: "weather.get_weather", enabled: true }),
    ]);
  });

  it("switches a tool off and on: it leaves and rejoins the planner's tools, and the choice is saved", async () => {
    expect((await ask()).toolNames).toContain("get_weather");
    const stream = await openSse(`${bot.baseUrl}/api/plugins/stream`, { authorization: `Bearer ${TOKEN}` });

    const off = await api.post("/api/plugins/weather.get_weather/disable", {});
    expect(off.status).toBe(200);
    expect(off.body.persisted).toBe(true);
    expect(off.body.plugin.components[0].enabled).toBe(false);
    await stream.waitFor(
      (_e, data) =>
        (data as Array<{ components: Array<{ enabled: boolean }> }>)[0]!.components[0]!.enabled === false,
    );
    stream.close();
    expect((await ask()).toolNames).not.toContain("get_weather");
    expect(fileSettings().disabled).toEqual(["weather.get_weather"]);

    const on = await api.post("/api/plugins/weather.get_weather/enable", {});
    expect(on.body.plugin.components[0].enabled).toBe(true);
    expect((await ask()).toolNames).toContain("get_weather");
    expect(fileSettings().disabled).toEqual([]);
  });

  it("disables, enables and reloads a whole plugin", async () => {
    const off = await api.post("/api/plugins/weather/disable", {});
    expect(off.body.plugin.state).toBe("disabled");
    expect((await ask()).toolNames).not.toContain("get_weather");
    const on = await api.post("/api/plugins/weather/enable", {});
    expect(on.body.plugin.state).toBe("enabled");
    const loadedAt = on.body.plugin.loadedAt;
    const reloaded = await api.post("/api/plugins/weather/reload", {});
    expect(reloaded.status).toBe(200);
    expect(reloaded.body.plugin.loadedAt).toBeGreaterThanOrEqual(loadedAt);
    expect((await api.post("/api/plugins/nothing/reload", {})).status).toBe(404);
    expect((await api.post("/api/plugins/weather.nothing/disable", {})).status).toBe(400);
  });

  it("checks a config against the plugin's schema, applies it and saves it", async () => {
    const wrong = await api.put("/api/plugins/weather/config", { config: { units: "kelvin" } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.message).toContain("units");

    const saved = await api.put("/api/plugins/weather/config", { config: { units: "f", max_cities: 2 } });
    expect(saved.status).toBe(200);
    expect(saved.body.plugin.config).toEqual({ units: "f", max_cities: 2 });
    expect(fileSettings().config).toEqual({ weather: { units: "f", max_cities: 2 } });

    llm.enqueue(
      { toolCalls: [{ name: "get_weather", arguments: { city: "上海" } }] },
      { toolCalls: [{ name: "no_reply", arguments: { reason: "测试" } }] },
    );
    await api.post("/api/playground/messages", {
      chatType: "private",
      userId: "30001",
      senderName: "Alice",
      segments: [{ type: "text", data: { text: "上海天气？" } }],
    });
    await waitFor(() => llm.remainingSteps === 0, 5_000, "every scripted answer was taken");
    expect(llm.requests.at(-1)!.promptText).toContain("77°F");
  });
});
