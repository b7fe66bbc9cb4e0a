import { afterEach, describe, expect, it, onTestFinished } from "vitest";
import { CommandRegistry } from "../../src/components/command-registry.ts";
import { EnricherRegistry } from "../../src/components/enrichers.ts";
import { ReplyExtensionRegistry } from "../../src/components/extension-registry.ts";
import { HookRegistry } from "../../src/components/hooks.ts";
import { ApprovalService } from "../../src/components/hooks-approval.ts";
import { normalizeParameters } from "../../src/components/parameters.ts";
import { ToolRegistry } from "../../src/components/tool-registry.ts";
import { createLogger } from "../../src/log/logger.ts";
import { MonitorHub } from "../../src/monitor/monitor.ts";
import type { PluginFolderSettings } from "../../src/plugins/config.ts";
import { PluginModuleLoader } from "../../src/plugins/module-loader.ts";
import { NodePluginRuntime } from "../../src/plugins/node-runtime.ts";
import { createPluginAjv } from "../../src/plugins/plugin-ajv.ts";
import { PluginHost } from "../../src/plugins/plugin-host.ts";
import { classPlugin, PluginSandbox } from "./plugin-fixtures.ts";

const probe = globalThis as { pluginProbe?: Record<string, unknown> };

describe("PluginHost (the console's control surface)", () => {
  let sandbox: PluginSandbox;
  let host: PluginHost;
  const tools = new ToolRegistry();

  /** The bot config's `plugins` section the host reads; tests edit it and call `applySettings`. */
  let settings: PluginFolderSettings;
  const startHost = async (overrides: Partial<PluginFolderSettings> = {}) => {
    settings = { dirs: [sandbox.root], disabled: [], config: {}, ...overrides };
    host = new PluginHost({
      settings: () => settings,
      registries: {
        tool: tools,
        command: new CommandRegistry(),
        hook: new HookRegistry(),
        enricher: new EnricherRegistry(),
        reply_extension: new ReplyExtensionRegistry(),
      },
      runtimes: { node: new NodePluginRuntime(new PluginModuleLoader()) },
      createAjv: createPluginAjv,
      monitor: new MonitorHub(),
      logger: createLogger({ level: "silent" }),
      watch: false,
    });
    await host.start();
  };

  const expectFailed = (id: string, error: string) =>
    expect(host.get(id)).toMatchObject({ state: "failed", error: expect.stringContaining(error) });

  afterEach(async () => {
    await host?.stop();
    sandbox.remove();
    delete probe.pluginProbe;
  });

  it("validates config changes, calls onConfigChanged, and keeps the old config on a bad one", async () => {
    sandbox = new PluginSandbox();
    sandbox.add(
      "greeter",
      {
        "index.ts": classPlugin(`
  override onConfigChanged(config: { greeting: string }) {
    ((globalThis as any).pluginProbe ??= { changes: [] }).changes.push(config.greeting);
  }
  @Tool("greet", { description: "打招呼" })
  greet() { return { text: (this.config as any).greeting }; }`),
      },
      { config: { type: "object", properties: { greeting: { type: "string", default: "你好" } } } },
    );
    await startHost();
    expect(host.get("greeter")).toMatchObject({ state: "enabled", config: { greeting: "你好" } });
    settings = { dirs: [sandbox.root], disabled: [], config: { greeter: { greeting: "早" } } };
    await host.applySettings();
    expect(probe.pluginProbe).toEqual({ changes: ["早"] });
    const rejected = await host.setConfig("greeter", { greeting: 42 });
    expect(rejected).toEqual({ ok: false, error: expect.stringContaining("greeting: must be string") });
    expect(host.get("greeter")).toMatchObject({
      config: { greeting: "早" },
      error: expect.stringContaining("greeting"),
    });
    expect(probe.pluginProbe).toEqual({ changes: ["早"] });
  });

  it("finds new plugin folders and disables by config on refresh (function-declaration refresh_tools)", async () => {
    sandbox = new PluginSandbox();
    await startHost();
    expect(host.list()).toEqual([]);
    sandbox.add("late", {
      "index.ts": classPlugin(`  @Tool("late_tool", { description: "后来的" })\n  run() { return {}; }`),
    });
    await host.refreshTools();
    expect(host.list().map((status) => [status.id, status.state])).toEqual([["late", "enabled"]]);
    expect(tools.all().map((tool) => tool.fullName)).toEqual(["late.late_tool"]);
    settings = { dirs: [sandbox.root], disabled: ["late"], config: {} };
    await host.applySettings();
    expect(host.get("late")?.state).toBe("disabled");
    expect(tools.all()).toEqual([]);
  });

  it("refuses function declarations wrapped by the author or missing from dynamicImports", async () => {
    sandbox = new PluginSandbox();
    sandbox.add("wrapped", {
      "index.ts": `export const dynamicImports = { "./f.ts": ["f"] };
export const functionDeclarations = [{ type: "function", function: { name: "f", description: "x", parameters: {} } }];`,
    });
    sandbox.add("unmapped", {
      "index.ts": `export const dynamicImports = {};
export const functionDeclarations = [{ name: "g", description: "y" }];`,
    });
    await startHost();
    expectFailed("wrapped", 'functionDeclarations[0] is wrapped in {"type":"function","function":…}');
    expectFailed("unmapped", '"g" but dynamicImports does not say which module has it');
    expect(tools.all()).toEqual([]);
  });

  it("loads function-declaration snake_case exports and dotted dynamic_imports, checking every path at load", async () => {
    sandbox = new PluginSandbox();
    const declarations = 'export const function_declarations = [{ name: "coins", description: "查金币" }];';
    // The gold vault walkthrough's whole run/gold_vault/ tree inside the plugin folder.
    sandbox.add("tree", {
      "index.ts": `export const dynamic_imports = { "run.gold_vault.service": ["coins"] };\n${declarations}`,
      "run/gold_vault/service.ts": "export async function coins() { return {}; }",
    });
    sandbox.add("package", {
      "index.ts": `export const dynamic_imports = { "run.package.lib": ["coins"] };\n${declarations}`,
      "lib/index.js": "export async function coins() { return {}; }",
    });
    sandbox.add("typo", {
      "index.ts": `export const dynamic_imports = { "run.typo.servise": ["coins"] };\n${declarations}`,
      "service.ts": "export async function coins() { return {}; }",
    });
    sandbox.add("missing", {
      "index.ts": `export const dynamicImports = { "./gone.ts": ["coins"] };\nexport const functionDeclarations = [{ name: "coins", description: "查金币" }];`,
    });
    sandbox.add("same", {
      "index.ts": `export const dynamic_imports = { "./service.ts": ["coins"] };\n${declarations}
export const functionDeclarations = function_declarations;
export const dynamicImports = { "./service.ts": ["coins"] };`,
      "service.ts": "export async function coins() { return {}; }",
    });
    sandbox.add("both", {
      "index.ts": `export const dynamic_imports = { "./service.ts": ["coins"] };\n${declarations}
export const functionDeclarations = [{ name: "other", description: "另一个" }];`,
      "service.ts": "export async function coins() { return {}; }",
    });
    await startHost();
    for (const id of ["tree", "package", "same"]) {
      expect(host.get(id)).toMatchObject({ state: "enabled", components: [{ name: "coins" }] });
    }
    expectFailed("typo", 'dynamic_imports["run.typo.servise"] names no module in the plugin folder');
    expectFailed("missing", 'dynamicImports["./gone.ts"] names no module');
    expectFailed("both", "exports both functionDeclarations and function_declarations");
  });

  it("compiles each plugin's schemas on their own: an $id survives reload, disable→enable and refresh", async () => {
    sandbox = new PluginSandbox();
    const withId = (tool: string) =>
      classPlugin(`
  @Tool("${tool}", {
    description: "查金币",
    parameters: { $id: "https://example.com/coins.json", type: "object", properties: { target_name: { type: "string" } } },
  })
  coins() { return {}; }`);
    const config = { $id: "https://example.com/config.json", type: "object", properties: {} };
    // Two plugins with one $id: each has its own.
    sandbox.add("vault_a", { "index.ts": withId("coins_a") }, { config });
    sandbox.add("vault_b", { "index.ts": withId("coins_b") }, { config });
    await startHost();
    const healthy = (id: string) => {
      expect(host.get(id)).toMatchObject({ state: "enabled", components: [{ enabled: true }] });
      expect(host.get(id)?.error).toBeUndefined();
    };
    healthy("vault_a");
    healthy("vault_b");
    expect(await host.reload("vault_a")).toMatchObject({ ok: true });
    healthy("vault_a");
    await host.disable("vault_a");
    expect(host.get("vault_a")?.state).toBe("disabled");
    await host.enable("vault_a");
    healthy("vault_a");
    await host.refreshTools();
    healthy("vault_a");
    healthy("vault_b");
    expect(await host.setConfig("vault_b", {})).toMatchObject({ ok: true });
    expect(
      tools
        .all()
        .map((tool) => tool.fullName)
        .sort(),
    ).toEqual(["vault_a.coins_a", "vault_b.coins_b"]);
  });

  it("refuses tool names that clash with built-ins or another plugin", async () => {
    sandbox = new PluginSandbox();
    // A host tool, as the planner's own tools are registered (run by the turn: no invoke).
    const removeReply = tools.add({
      kind: "tool",
      pluginId: "tsumugi",
      name: "reply",
      fullName: "tsumugi.reply",
      description: "reply",
      scope: { chatScope: "all" },
      parameters: { type: "object" },
      validate: () => undefined,
    });
    onTestFinished(removeReply);
    sandbox.add("one", {
      "index.ts": classPlugin(
        `  @Tool("reply", { description: "冒充" })\n  a() { return {}; }\n  @Tool("shared", { description: "x" })\n  b() { return {}; }`,
      ),
    });
    sandbox.add("two", {
      "index.ts": classPlugin(`  @Tool("shared", { description: "y" })\n  c() { return {}; }`),
    });
    await startHost();
    const one = host.get("one")!;
    expect(one.components.find((c) => c.name === "reply")).toMatchObject({
      enabled: false,
      error: 'tool name "reply" is a built-in tool',
    });
    expect(host.get("two")!.components[0]).toMatchObject({
      enabled: false,
      error: 'tool name "shared" is already taken by one.shared',
    });
  });
});

describe("tool parameters", () => {
  it("accepts a list, a property map or a full object schema", () => {
    expect(
      normalizeParameters([
        { name: "city", type: "string", required: true },
        { name: "days", type: "integer" },
      ]),
    ).toEqual({
      type: "object",
      properties: { city: { type: "string" }, days: { type: "integer" } },
      required: ["city"],
      additionalProperties: false,
    });
    expect(normalizeParameters({ city: { type: "string" } })).toEqual({
      type: "object",
      properties: { city: { type: "string" } },
      additionalProperties: false,
    });
    const full = { type: "object", properties: { a: { type: "number" } } };
    expect(normalizeParameters(full)).toBe(full);
  });

  it("refuses $ref and $dynamicRef with a clear error", () => {
    expect(() => normalizeParameters({ a: { $ref: "#/defs/x" } })).toThrow(
      "parameters use $ref at /properties/a: $ref and $dynamicRef are not supported, declare inline",
    );
    expect(() =>
      normalizeParameters({ type: "object", properties: { b: { items: { $dynamicRef: "#x" } } } }),
    ).toThrow("$dynamicRef at /properties/b/items");
  });
});

describe("approvals", () => {
  it("counts no answer within the timeout as expired, and ids are single-use", async () => {
    const approvals = new ApprovalService(50);
    const seen: string[] = [];
    const stop = approvals.subscribe((event) => seen.push(event.type));
    const { request, answer } = approvals.request({ tool: "rm", input: {}, sessionId: "s" });
    expect(approvals.pending().map((item) => item.id)).toEqual([request.id]);
    expect(await answer).toBe("expired");
    expect(approvals.approve(request.id)).toBe(false);
    const second = approvals.request({ tool: "rm", input: {}, sessionId: "s" });
    expect(approvals.deny(second.request.id, "39999")).toBe(true);
    expect(await second.answer).toBe("denied");
    stop();
    expect(seen).toEqual(["requested", "answered", "requested", "answered"]);
  });
});
