import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { buildServer, serverBuildIsStale } from "../../scripts/build-server.ts";
import { validateConfig } from "../../src/config/validate.ts";
import { classPlugin, PluginSandbox } from "../plugins/plugin-fixtures.ts";
import { pluginStatuses } from "../support/bot-api.ts";
import { type BotProcess, startBotProcess } from "../support/bot-process.ts";
import { waitFor } from "../support/wait.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const DEFAULT_PLUGINS = join(ROOT, "plugins");
const PLUGIN_CACHE = join(ROOT, "node_modules/.cache/tsumugi/plugins");

describe("npm start: the compiled build, plain node, no transpiler at run time", () => {
  let bot: BotProcess | undefined;
  let sandbox: PluginSandbox | undefined;

  beforeAll(async () => {
    // What `npm start`'s prestart does: build only when a source is newer than dist/server.
    if (serverBuildIsStale()) await buildServer();
  }, 120_000);

  afterEach(async () => {
    await bot?.dispose();
    sandbox?.remove();
    bot = undefined;
    sandbox = undefined;
  });

  it("answers /healthz and loads a TypeScript plugin importing tsumugi/sdk, transpiled once and cached", async () => {
    sandbox = new PluginSandbox();
    // A unique body, so this run's transpiled file is new in the cache.
    const marker = `compiled_${Date.now()}`;
    sandbox.add("typed", {
      "index.ts": classPlugin(`
  @Tool("${marker}", { description: "标记工具" })
  async ${marker}(): Promise<{ ok: boolean }> {
    return { ok: helper() };
  }`).replace('from "tsumugi/sdk";', 'from "tsumugi/sdk";\nimport { helper } from "./helper.js";'),
      "helper.ts": `// ${marker}\nexport const helper = (): boolean => true;\n`,
    });
    const cachedBefore = existsSync(PLUGIN_CACHE) ? readdirSync(PLUGIN_CACHE).length : 0;
    bot = await startBotProcess({ compiled: true, config: { plugins: { dirs: [sandbox.root] } } });
    const health = await fetch(`${bot.baseUrl}/healthz`);
    expect(health.status).toBe(200);
    const running = bot;
    const typedStatus = async () => (await pluginStatuses(running)).find((status) => status.id === "typed");
    await waitFor(
      async () => {
        const status = await typedStatus();
        return status?.loadedAt !== undefined || status?.error !== undefined;
      },
      15_000,
      "the plugin to load",
    );
    const typed = await typedStatus();
    expect(typed?.error).toBeUndefined();
    expect(typed?.components.map((component) => component.name)).toEqual([marker]);
    // The entry and its helper, transpiled on load, are cached for the next start.
    expect(readdirSync(PLUGIN_CACHE).length).toBeGreaterThanOrEqual(cachedBefore + 2);
  });

  it("starts no example process from the default plugin folder: only the in-process plugins", async () => {
    bot = await startBotProcess({ compiled: true, config: { plugins: { dirs: [DEFAULT_PLUGINS] } } });
    const running = bot;
    // Folders load in name order; the last one settled means all of them have.
    await waitFor(
      async () =>
        (await pluginStatuses(running)).some((status) => status.id === "voice_plugin" && status.loadedAt),
      15_000,
      "the default plugins to load",
    );
    const statuses = await pluginStatuses(bot);
    expect(statuses.map((status) => status.id).sort()).toEqual(["clock", "dice", "ping", "voice_plugin"]);
    expect(statuses.every((status) => status.runtime === "node")).toBe(true);
  });

  it("checks the config with the schema compiled at build time: the same problems as from source", () => {
    const folder = mkdtempSync(join(tmpdir(), "tsumugi-bad-config-"));
    try {
      const text = [
        'server: { port: "abc", host: 0.0.0.0 }',
        "admins: [10001]",
        "chat: { mode: fast, history: { dropFraction: 2 } }",
        "adapters: [{ id: qq, mode: sideways }]",
        "plugins: { admins: [qq:] }",
      ].join("\n");
      const file = join(folder, "tsumugi.yaml");
      writeFileSync(file, text);
      const fromSource = validateConfig(parse(text));
      expect(fromSource.ok).toBe(false);
      const problems = fromSource.ok ? [] : fromSource.problems;
      expect(problems.length).toBeGreaterThanOrEqual(5);
      const run = spawnSync(process.execPath, [join(ROOT, "dist/server/main.mjs"), "--config", file], {
        cwd: folder,
        encoding: "utf8",
        env: { ...process.env, TSUMUGI_CONFIG: "" },
        timeout: 15_000,
      });
      expect(run.status).toBe(2);
      for (const problem of problems) expect(run.stderr).toContain(problem);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
