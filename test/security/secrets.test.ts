// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these tests are about ${VAR} references in config text.
/**
 * Secrets stay where they are: the console never shows one (found by the schema's
 * `writeOnly`, not by key names), a kept one never follows its provider to a new host, a
 * console edit cannot read the process's environment, and a stdio plugin sees only the
 * variables it declares.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, parseDocument } from "yaml";
import { secretPaths } from "../../src/schema/secret-paths.ts";
import type { PluginFolder } from "../plugins/plugin-fixtures.ts";
import { nodeStdioPlugin, PluginSandbox } from "../stdio/stdio-fixtures.ts";
import { type ApiClient, apiClient } from "../support/api-client.ts";
import { type BotHarness, startBot } from "../support/bot-harness.ts";
import { ScriptedLlmServer } from "../support/scripted-llm-server.ts";
import { waitFor } from "../support/wait.ts";

const TOKEN = "secrets-console-token";
const API_KEY = "sk-main-secret-key";
const AUTHORIZATION = "Bearer hdr-secret-value";
const X_API_KEY = "xkey-secret-value";
const PLUGIN_KEY = "plugin-secret-value";
const DECLARED = "TSUMUGI_SECRETS_TEST_DECLARED";
const UNDECLARED = "TSUMUGI_SECRETS_TEST_UNDECLARED";
const ENV_SECRET = "sk-from-the-environment";
const SECRETS = [API_KEY, "hdr-secret-value", X_API_KEY, PLUGIN_KEY, ENV_SECRET];

/** Writes the variables it sees and every config it is given into its data/ folder. */
const PROBE_PLUGIN = `
const fs = require("node:fs");
const readline = require("node:readline");
fs.mkdirSync("data", { recursive: true });
fs.writeFileSync("data/env.json", JSON.stringify({
  declared: process.env.${DECLARED} ?? null,
  undeclared: process.env.${UNDECLARED} ?? null,
  hasPath: process.env.PATH !== undefined,
}));
const write = (message) => process.stdout.write(JSON.stringify(message) + "\\n");
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const { method, params = {} } = JSON.parse(line);
  if (method === "activate" || method === "config_changed") {
    fs.writeFileSync("data/config.json", JSON.stringify(params.config));
  }
  write(method === "activate" ? {} : { result: "ok" });
});
`;

const PROBE_MANIFEST = {
  env: [DECLARED],
  config: {
    type: "object",
    properties: {
      api_key: { type: "string", writeOnly: true, default: "" },
      city: { type: "string", default: "" },
    },
    additionalProperties: false,
  },
};

describe("secrets through the console, the logs, the timeline and plugin processes", () => {
  const saved: Record<string, string | undefined> = {};
  let sandbox: PluginSandbox;
  let probe: PluginFolder;
  let llm: ScriptedLlmServer;
  let elsewhere: ScriptedLlmServer;
  let bot: BotHarness;
  let api: ApiClient;

  beforeAll(async () => {
    for (const name of [DECLARED, UNDECLARED]) saved[name] = process.env[name];
    process.env[DECLARED] = "declared-value";
    process.env[UNDECLARED] = ENV_SECRET;
    sandbox = new PluginSandbox();
    probe = nodeStdioPlugin(sandbox, "probe", PROBE_PLUGIN, PROBE_MANIFEST);
    llm = await ScriptedLlmServer.start();
    elsewhere = await ScriptedLlmServer.start();
    bot = await startBot({
      configFile: true,
      config: {
        server: { token: TOKEN },
        llm: {
          providers: [
            {
              id: "main",
              type: "openai-compatible",
              baseUrl: llm.baseUrl,
              apiKey: API_KEY,
              maxRetries: 0,
              headers: { Authorization: AUTHORIZATION, "x-api-key": X_API_KEY },
            },
            {
              id: "env",
              type: "openai-compatible",
              baseUrl: llm.baseUrl,
              apiKey: `\${${UNDECLARED}}`,
            },
          ],
          models: { planner: ["main/scripted-model"], replyer: ["main/scripted-model"] },
        },
        plugins: { dirs: [sandbox.root], config: { probe: { api_key: PLUGIN_KEY, city: "上海" } } },
      },
    });
    api = apiClient(bot.baseUrl, TOKEN);
  });

  afterAll(async () => {
    await bot?.dispose();
    await llm?.close();
    await elsewhere?.close();
    sandbox?.remove();
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  const fileText = () => readFileSync(bot.configFile!, "utf8");
  const shownYaml = async () => (await api.get("/api/config")).body.yaml as string;
  const edit = async (change: (document: ReturnType<typeof parseDocument>) => void) => {
    const document = parseDocument(await shownYaml());
    change(document);
    return api.put("/api/config", { yaml: document.toString() });
  };

  it("hides header values and writeOnly plugin fields in the config and plugin views", async () => {
    const yaml = await shownYaml();
    for (const secret of SECRETS.slice(0, 4)) expect(yaml).not.toContain(secret);
    const shown = parse(yaml);
    expect(shown.llm.providers[0]).toMatchObject({
      apiKey: "********",
      headers: { Authorization: "********", "x-api-key": "********" },
    });
    // A bare reference names a variable, not its value: it stays readable.
    expect(shown.llm.providers[1].apiKey).toBe(`\${${UNDECLARED}}`);
    expect(shown.plugins.config.probe).toEqual({ api_key: "********", city: "上海" });

    const plugins = await api.get("/api/plugins");
    for (const secret of SECRETS) expect(JSON.stringify(plugins.body)).not.toContain(secret);
    const status = plugins.body.plugins.find((plugin: { id: string }) => plugin.id === "probe");
    expect(status.config).toEqual({ api_key: "********", city: "上海" });
  });

  it("keeps a plugin's hidden field when the placeholder is saved back", async () => {
    const answer = await api.put("/api/plugins/probe/config", {
      config: { api_key: "********", city: "北京" },
    });
    expect(answer.status).toBe(200);
    expect(answer.body.plugin.config).toEqual({ api_key: "********", city: "北京" });
    expect(answer.body.persisted).toBe(true);
    const configFile = join(probe.dir, "data", "config.json");
    await waitFor(() => existsSync(configFile) && readFileSync(configFile, "utf8").includes("北京"));
    expect(JSON.parse(readFileSync(configFile, "utf8"))).toEqual({ api_key: PLUGIN_KEY, city: "北京" });
    expect(parse(fileText()).plugins.config.probe).toEqual({ api_key: PLUGIN_KEY, city: "北京" });
  });

  it("refuses to keep a key whose provider now points elsewhere, and never sends it there", async () => {
    const before = fileText();
    const moved = await edit((document) =>
      document.setIn(["llm", "providers", 0, "baseUrl"], elsewhere.baseUrl),
    );
    expect(moved.status).toBe(400);
    expect(moved.body.problems).toEqual(
      expect.arrayContaining([
        "llm.providers[0].apiKey: the provider's baseUrl changed; type the key again",
        "llm.providers[0].headers.x-api-key: the provider's baseUrl changed; type the key again",
      ]),
    );
    const retyped = await edit((document) => document.setIn(["llm", "providers", 0, "type"], "openai"));
    expect(retyped.status).toBe(400);
    expect(retyped.body.problems).toContain(
      "llm.providers[0].apiKey: the provider's type changed; type the key again",
    );
    // A key kept as a ${VAR} reference is a kept key too.
    const referenced = await edit((document) =>
      document.setIn(["llm", "providers", 1, "baseUrl"], elsewhere.baseUrl),
    );
    expect(referenced.status).toBe(400);
    expect(referenced.body.problems).toEqual([
      "llm.providers[1].apiKey: the provider's baseUrl changed; type the key again",
    ]);
    expect(fileText()).toBe(before);

    llm.enqueue({ text: "OK" }, { text: "OK" });
    for (const ref of ["main/scripted-model", "env/scripted-model"]) {
      await api.post("/api/models/test", { ref });
    }
    const reachedElsewhere = JSON.stringify(elsewhere.requests.map((request) => request.headers));
    for (const secret of SECRETS) expect(reachedElsewhere).not.toContain(secret);
  });

  it("refuses a ${VAR} reference a console edit adds, in the config and in a plugin's config", async () => {
    const before = fileText();
    const persona = await edit((document) => document.setIn(["bot", "persona"], `我是\${${UNDECLARED}}`));
    expect(persona.status).toBe(400);
    expect(persona.body.problems).toEqual([
      "bot.persona: ${VAR} references can only be added by editing the file on the server",
    ]);
    expect(fileText()).toBe(before);

    const plugin = await api.put("/api/plugins/probe/config", {
      config: { api_key: "********", city: `\${${UNDECLARED}}` },
    });
    expect(plugin.body.persisted).toBe(false);
    expect(fileText()).toBe(before);
    const configFile = join(probe.dir, "data", "config.json");
    await waitFor(() => readFileSync(configFile, "utf8").includes(UNDECLARED));
    expect(readFileSync(configFile, "utf8")).not.toContain(ENV_SECRET);
  });

  it("starts a stdio plugin with the variables it declares and without the others", async () => {
    const envFile = join(probe.dir, "data", "env.json");
    await waitFor(() => existsSync(envFile));
    expect(JSON.parse(readFileSync(envFile, "utf8"))).toEqual({
      declared: "declared-value",
      undeclared: null,
      hasPath: true,
    });
  });

  it("keeps header values a provider echoes out of the timeline and the log", async () => {
    llm.enqueue({
      status: 401,
      body: { error: { message: `invalid x-api-key ${X_API_KEY} (hdr-secret-value)` } },
    });
    await api.post("/api/playground/messages", {
      chatType: "private",
      userId: "30001",
      senderName: "Alice",
      segments: [{ type: "text", data: { text: "在吗？" } }],
    });
    let events = "";
    for (let tries = 0; tries < 200 && !events.includes('"status":"failed"'); tries++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      events = JSON.stringify((await api.get("/api/monitor/events?limit=500")).body.events);
    }
    expect(events).toContain("invalid x-api-key ***");
    const logs = JSON.stringify(bot.logs);
    for (const secret of SECRETS) {
      expect(events).not.toContain(secret);
      expect(logs).not.toContain(secret);
    }
  });
});

describe("finding secrets by schema", () => {
  // A plugin's config schema may be written any of these ways; its secret fields are hidden all the same.
  it("follows $ref, tagged variants, records and tuples, and takes format: password too", () => {
    const schema = {
      $defs: { key: { type: "string", format: "password" } },
      type: "object",
      properties: {
        login: { $ref: "#/$defs/key" },
        upstreams: {
          type: "array",
          items: {
            type: "object",
            discriminator: { propertyName: "kind" },
            oneOf: [
              { properties: { kind: { const: "basic" }, password: { type: "string", writeOnly: true } } },
              { properties: { kind: { const: "open" }, password: { type: "string" } } },
            ],
          },
        },
        extra: { type: "object", additionalProperties: { type: "string", writeOnly: true } },
        pair: { type: "array", prefixItems: [{ type: "string" }, { type: "string", writeOnly: true }] },
      },
    };
    const value = {
      login: "a",
      upstreams: [
        { kind: "open", password: "shown" },
        { kind: "basic", password: "hidden" },
      ],
      extra: { token: "t" },
      pair: ["name", "secret"],
    };
    expect(secretPaths(schema, value)).toEqual([
      ["login"],
      ["upstreams", 1, "password"],
      ["extra", "token"],
      ["pair", 1],
    ]);
  });
});
