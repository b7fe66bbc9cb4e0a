// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these tests are about ${VAR} references in config text.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config/load.ts";

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tsumugi-config-"));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function writeConfig(text: string, name = "tsumugi.yaml"): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

/** Loads `text` as the config file and returns the problems it was rejected with. */
function problemsOf(text: string, env: NodeJS.ProcessEnv = {}): string[] {
  const file = writeConfig(text);
  try {
    loadConfig({ file, env, cwd: dir });
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error("config was accepted");
}

describe("loadConfig without a file", () => {
  it("runs on a complete set of defaults", () => {
    const { config, file } = loadConfig({ env: {}, cwd: dir });
    expect(file).toBeUndefined();
    expect(config.server).toEqual({ host: "127.0.0.1", port: 6180, token: "", allowedHosts: [] });
    expect(config.storage.url).toBe("sqlite:./data/tsumugi.db");
    expect(config.storage.retention).toEqual({ days: 0, messagesPerSession: 100_000 });
    expect(config.storage.spoolSize).toBe(50_000);
    // No persona: the `persona` template of prompts.language speaks for it.
    expect(config.bot).toEqual({ name: "紬", aliases: ["tsumugi"], interests: [], admins: [], voice: {} });
    expect(config.prompts).toEqual({ language: "zh", templates: {} });
    expect(config.adapters).toEqual([
      {
        type: "onebot",
        id: "qq",
        mode: "reverse-ws",
        path: "/onebot/v11/ws",
        accessToken: "",
        actionTimeoutMs: 30000,
      },
    ]);
    expect(config.llm).toEqual({
      providers: [],
      models: {
        planner: [],
        replyer: [],
        vision: [],
        memory: [],
        embedding: [],
        expressions: [],
        speech: [],
        tts: [],
        image: [],
        gate: [],
        economy: [],
      },
      acceptsImages: [],
      prices: {},
      modelMirror: "",
    });
    expect(config.monitor).toEqual({ maxEvents: 10_000, maxAgeHours: 72 });
    expect(config.agent).toEqual({
      maxRounds: 8,
      maxWaitSeconds: 30,
      turnTimeoutMs: 120000,
      recoverWithinMs: 120000,
      deferToolsAbove: 20,
      alwaysOnTools: [],
      toolSearchResults: 5,
    });
    expect(config.mcp).toEqual({ servers: [], pingIntervalMs: 15000 });
    expect(config.chat.triggers).toEqual({
      mention: true,
      replyToSelf: true,
      keywords: [],
      privateAlways: true,
      poke: true,
    });
    expect(config.chat.realtime).toEqual({
      windowMs: 800,
      maxWindowMs: 3000,
      maxMessages: 10,
      maxChars: 8000,
      maxTurnMessages: 30,
      maxTurnChars: 8000,
      maxTurnMessagesPerUser: 10,
    });
    expect(config.chat.digest).toEqual({
      enabled: false,
      intervalMs: 300000,
      minMessages: 3,
      maxMessages: 50,
      maxTranscriptChars: 20000,
    });
    expect(config.chat.history).toEqual({ maxMessages: 20, maxChars: 4000, dropFraction: 0.5, growth: 3 });
    expect(config.chat.quote).toEqual({
      enabled: true,
      resolveForward: true,
      maxDepth: 2,
      maxNodes: 20,
      maxChars: 4000,
      timeoutMs: 10000,
    });
    expect(config.chat.textChunkLimit).toBe(4500);
    expect(config.plugins).toEqual({
      dirs: ["./plugins"],
      disabled: [],
      config: {},
      trusted: [],
      sandbox: "auto",
      sandboxMemoryMb: 512,
      sandboxUid: 65534,
      sandboxGid: 65534,
    });
    expect(config.log.level).toBe("info");
  });

  it("treats an empty file and empty keys as defaults", () => {
    const defaults = loadConfig({ env: {}, cwd: dir }).config;
    writeConfig("# nothing yet\n");
    expect(loadConfig({ env: {}, cwd: dir }).config).toEqual(defaults);
    writeConfig("chat:\nllm:\n  providers:\nserver:\n  token:\n");
    expect(loadConfig({ env: {}, cwd: dir }).config).toEqual(defaults);
  });
});

describe("choosing the file", () => {
  it("reads ./tsumugi.yaml from the working directory when present", () => {
    const file = writeConfig("server: { port: 7001 }\n");
    const loaded = loadConfig({ env: {}, cwd: dir });
    expect(loaded.file).toBe(file);
    expect(loaded.config.server.port).toBe(7001);
  });

  it("prefers an explicit file, relative to cwd, over TSUMUGI_CONFIG and ./tsumugi.yaml", () => {
    writeConfig("server: { port: 7001 }\n");
    writeConfig("server: { port: 7002 }\n", "from-env.yaml");
    writeConfig("server: { port: 7003 }\n", "explicit.yaml");
    const env = { TSUMUGI_CONFIG: "from-env.yaml" };
    expect(loadConfig({ env, cwd: dir }).config.server.port).toBe(7002);
    expect(loadConfig({ file: "explicit.yaml", env, cwd: dir }).config.server.port).toBe(7003);
  });

  it("fails when the explicitly named file does not exist, even if ./tsumugi.yaml does", () => {
    writeConfig("server: { port: 7001 }\n");
    const missing = join(dir, "missing.yaml");
    expect(() => loadConfig({ file: missing, env: {}, cwd: dir })).toThrow(ConfigError);
    try {
      loadConfig({ env: { TSUMUGI_CONFIG: missing }, cwd: dir });
      expect.unreachable();
    } catch (error) {
      expect((error as ConfigError).problems).toEqual([`${missing}: config file not found`]);
    }
  });

  it("reports a YAML syntax error with its line and column", () => {
    const problems = problemsOf("server:\n  port: 6180\nbot: { name: x\n");
    const file = join(dir, "tsumugi.yaml");
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(new RegExp(`^${file} line 4, column 1: `));
  });

  it("reports an alias without an anchor as a problem of the file, not a crash", () => {
    const problems = problemsOf("bot:\n  name: *missing\n");
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(join(dir, "tsumugi.yaml"));
  });
});

describe("environment variables", () => {
  it("expands ${VAR} and ${VAR:-default} in values, with numbers from the environment accepted", () => {
    writeConfig(
      [
        "server:",
        "  port: ${PORT:-7000}",
        "  token: ${TSUMUGI_TOKEN:-}",
        "bot:",
        "  name: ${BOT_NAME:-x}",
        "  persona: ${UNSET}",
      ].join("\n"),
    );
    const first = loadConfig({ env: {}, cwd: dir }).config;
    expect(first.server).toEqual({ host: "127.0.0.1", port: 7000, token: "", allowedHosts: [] });
    expect(first.bot.name).toBe("x");
    expect(first.bot.persona).toBe("");
    const second = loadConfig({ env: { PORT: "7100", TSUMUGI_TOKEN: "s3cret", BOT_NAME: "Mugi" }, cwd: dir });
    expect(second.config.server).toEqual({
      host: "127.0.0.1",
      port: 7100,
      token: "s3cret",
      allowedHosts: [],
    });
    expect(second.config.bot.name).toBe("Mugi");
  });
});

describe("problems", () => {
  it("reports every bad value at once as `key.path: reason`", () => {
    const problems = problemsOf(
      [
        "server: { port: 70000 }",
        "llm:",
        "  providers:",
        "    - { id: main, type: openai-compatible, baseUrl: not a url }",
        "chat:",
        "  realtime: { windowMs: fast, maxMessages: 0 }",
        "  triggers: { mention: sometimes }",
        "log: { level: loud }",
      ].join("\n"),
    );
    expect(problems).toEqual([
      "server.port: must be <= 65535",
      "llm.providers[0].baseUrl: must be a URL",
      "chat.triggers.mention: must be a boolean",
      "chat.realtime.windowMs: must be a number",
      "chat.realtime.maxMessages: must be >= 1",
      "log.level: must be one of: fatal, error, warn, info, debug, trace, silent",
    ]);
  });

  it("rejects unknown keys, so typos do not go unnoticed", () => {
    expect(problemsOf("bot: { nmae: Mugi }\nchat: { realtime: { windowMS: 5 } }\nextra: 1\n")).toEqual([
      "extra: unknown key",
      "bot.nmae: unknown key",
      "chat.realtime.windowMS: unknown key",
    ]);
  });

  it("accepts any keys in plugins.config and provider headers", () => {
    const file = writeConfig(
      [
        "plugins:",
        "  config:",
        "    voice_plugin: { speaker: alice, nested: { any: [1, 2] } }",
        "llm:",
        "  providers:",
        "    - id: main",
        "      type: openai",
        "      headers: { X-Title: Tsumugi, HTTP-Referer: https://example.org }",
      ].join("\n"),
    );
    const { config } = loadConfig({ file, env: {}, cwd: dir });
    expect(config.plugins.config).toEqual({ voice_plugin: { speaker: "alice", nested: { any: [1, 2] } } });
    const [provider] = config.llm.providers;
    expect(provider?.type === "openai" && provider.headers).toEqual({
      "X-Title": "Tsumugi",
      "HTTP-Referer": "https://example.org",
    });
  });

  it("checks each provider and adapter against the fields of its type or mode", () => {
    const problems = problemsOf(
      [
        "adapters:",
        "  - { id: qq, mode: forward-ws }",
        "  - { id: web, mode: http, url: 'http://127.0.0.1:3000', secret: abc }",
        "  - { id: bad, mode: websocket }",
        "llm:",
        "  providers:",
        "    - { id: a, type: openai, model: gpt-4o }",
        "    - { id: b, type: llama-cpp, gpu: cuda }",
        "    - { id: c }",
      ].join("\n"),
    );
    expect(problems).toEqual([
      "adapters[0].url: required",
      "adapters[2].mode: must be one of: reverse-ws, forward-ws, http",
      "llm.providers[0].model: unknown key",
      "llm.providers[1].model: required",
      "llm.providers[1].gpu: must be one of: auto, false",
      "llm.providers[2].type: required",
    ]);
  });

  it("takes a qq-official adapter with its AppSecret from a systemd credential, and refuses one without", () => {
    const yaml = [
      "adapters:",
      "  - { type: qq-official, id: qqbot, appId: '102000000', secret: '${credential:qqbot-secret}' }",
    ].join("\n");
    expect(problemsOf(yaml)).toEqual([
      "adapters[0].secret: required: the AppSecret checks the signature of every event and buys access tokens",
    ]);
    expect(problemsOf("adapters:\n  - { type: qq-official, secret: x }")).toEqual([
      "adapters[0].appId: required",
    ]);

    const credentials = join(dir, "credentials");
    mkdirSync(credentials);
    writeFileSync(join(credentials, "qqbot-secret"), "DG5g3B4j9X2KOErG\n");
    const file = writeConfig(yaml);
    const { config } = loadConfig({ file, env: { CREDENTIALS_DIRECTORY: credentials }, cwd: dir });
    expect(config.adapters).toEqual([
      {
        type: "qq-official",
        id: "qqbot",
        appId: "102000000",
        secret: "DG5g3B4j9X2KOErG",
        path: "/qqbot/webhook",
        apiBase: "https://api.sgroup.qq.com",
        tokenUrl: "https://bots.qq.com/app/getAppAccessToken",
        markdown: false,
        actionTimeoutMs: 30000,
      },
    ]);
  });

  it("fills per-mode and per-type defaults", () => {
    const file = writeConfig(
      [
        "adapters:",
        "  - { id: web, mode: http, url: 'http://127.0.0.1:3000' }",
        "  - { id: fwd, mode: forward-ws, url: 'ws://127.0.0.1:3001' }",
        "llm:",
        "  providers:",
        "    - { id: local, type: llama-cpp, model: ./m.gguf }",
      ].join("\n"),
    );
    const { config } = loadConfig({ file, env: {}, cwd: dir });
    expect(config.adapters).toEqual([
      {
        type: "onebot",
        id: "web",
        mode: "http",
        url: "http://127.0.0.1:3000",
        path: "/onebot/v11/http",
        secret: "",
        accessToken: "",
        actionTimeoutMs: 30000,
      },
      {
        type: "onebot",
        id: "fwd",
        mode: "forward-ws",
        url: "ws://127.0.0.1:3001",
        reconnect: { minDelayMs: 1000, maxDelayMs: 30000 },
        accessToken: "",
        actionTimeoutMs: 30000,
      },
    ]);
    expect(config.llm.providers).toEqual([
      {
        id: "local",
        type: "llama-cpp",
        model: "./m.gguf",
        timeoutMs: 60000,
        threads: 0,
        contextSize: 8192,
        gpu: "auto",
      },
    ]);
  });

  it("names the model reference whose provider does not exist", () => {
    const problems = problemsOf(
      [
        "llm:",
        "  providers: [{ id: main, type: openai-compatible, baseUrl: 'https://api.deepseek.com/v1' }]",
        "  models:",
        "    planner: [x/deepseek-chat, main/deepseek-chat]",
        "    replyer: [main/deepseek-chat]",
        "    summary: [main, other/a/b]",
      ].join("\n"),
    );
    expect(problems).toEqual(['llm.models.summary[0]: must be "provider/model"']);
    const crossProblems = problemsOf(
      [
        "llm:",
        "  providers: [{ id: main, type: openai-compatible, baseUrl: 'https://api.deepseek.com/v1' }]",
        "  models:",
        "    planner: [x/deepseek-chat, main/deepseek-chat]",
        "    summary: [other/a/b]",
      ].join("\n"),
    );
    expect(crossProblems).toEqual([
      'llm.models.planner[0]: unknown provider "x"',
      'llm.models.summary[0]: unknown provider "other"',
    ]);
  });

  it("splits model references at the first slash", () => {
    const file = writeConfig(
      [
        "llm:",
        "  providers: [{ id: router, type: openai-compatible, baseUrl: 'https://openrouter.ai/api/v1' }]",
        "  models: { planner: [router/anthropic/claude-sonnet-4] }",
      ].join("\n"),
    );
    expect(loadConfig({ file, env: {}, cwd: dir }).config.llm.models.planner).toEqual([
      "router/anthropic/claude-sonnet-4",
    ]);
  });

  it("requires a token when the server listens beyond loopback", () => {
    expect(problemsOf("server: { host: 0.0.0.0 }\n")).toEqual([
      "server.token: required when server.host is not a loopback address",
      "adapters[0].accessToken: required when server.host is not a loopback address (anyone who can reach the port could connect as the QQ account)",
    ]);
    writeConfig(
      "server: { host: 0.0.0.0, token: '${TSUMUGI_TOKEN}' }\nadapters: [{ accessToken: onebot-token }]\n",
    );
    expect(loadConfig({ env: { TSUMUGI_TOKEN: "t" }, cwd: dir }).config.server.host).toBe("0.0.0.0");
    for (const host of ["localhost", "127.0.0.2", "::1", "[::1]"]) {
      writeConfig(`server: { host: "${host}" }\n`);
      expect(loadConfig({ env: {}, cwd: dir }).config.server.host).toBe(host);
    }
  });

  it("rejects duplicate ids, shared adapter paths and inverted ranges", () => {
    const problems = problemsOf(
      [
        "adapters:",
        "  - { id: qq }",
        "  - { id: qq, mode: http, url: 'http://127.0.0.1:3000', path: /onebot/v11/ws }",
        "llm:",
        "  providers: [{ id: main, type: openai }, { id: main, type: gemini }]",
        "chat:",
        "  realtime: { windowMs: 5000 }",
      ].join("\n"),
    );
    expect(problems).toEqual([
      'adapters[1].id: duplicate id "qq"',
      'llm.providers[1].id: duplicate id "main"',
      "adapters[1].path: already used by adapters[0]",
      "chat.realtime.maxWindowMs: must be >= chat.realtime.windowMs (5000)",
    ]);
  });

  it("accepts the config file of the public contract (every documented key)", () => {
    const file = writeConfig(
      [
        "server:",
        "  host: 127.0.0.1",
        "  port: 6180",
        "  token: ${TSUMUGI_TOKEN:-}",
        "bot:",
        '  admins: ["10001"]',
        "adapters:",
        "  - type: onebot",
        "    id: qq",
        "    mode: reverse-ws",
        "    path: /onebot/v11/ws",
        "    url: ws://127.0.0.1:3001",
        "    accessToken: ${ONEBOT_TOKEN:-}",
        "llm:",
        "  providers:",
        "    - id: main",
        "      type: openai-compatible",
        "      baseUrl: https://api.deepseek.com/v1",
        "      apiKey: ${OPENAI_API_KEY:-}",
        "  models:",
        "    planner: [main/deepseek-chat]",
        "    replyer: [main/deepseek-chat]",
      ].join("\n"),
    );
    const { config } = loadConfig({ file, env: { OPENAI_API_KEY: "sk-test" }, cwd: dir });
    expect(config.bot.admins).toEqual(["10001"]);
    expect(config.llm.providers[0]).toMatchObject({ id: "main", apiKey: "sk-test" });
  });
});
