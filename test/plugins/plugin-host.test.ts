import { Ajv } from "ajv";
import { afterEach, describe, expect, it } from "vitest";
import { BUILTIN_TOOL_NAMES } from "../../src/agent/builtin-tools.ts";
import { CommandRegistry } from "../../src/components/command-registry.ts";
import { EnricherRegistry } from "../../src/components/enrichers.ts";
import { ReplyExtensionRegistry } from "../../src/components/extension-registry.ts";
import { HookRegistry } from "../../src/components/hooks.ts";
import { ApprovalService } from "../../src/components/hooks-approval.ts";
import { normalizeParameters } from "../../src/components/parameters.ts";
import { ToolRegistry } from "../../src/components/tool-registry.ts";
import { createLogger } from "../../src/log/logger.ts";
import { MonitorHub } from "../../src/monitor/monitor.ts";
import type { PluginSettings } from "../../src/plugins/config.ts";
import { PluginModuleLoader } from "../../src/plugins/module-loader.ts";
import { NodePluginRuntime } from "../../src/plugins/node-runtime.ts";
import { PluginHost } from "../../src/plugins/plugin-host.ts";
import { classPlugin, PluginSandbox } from "./plugin-fixtures.ts";

const probe = globalThis as { pluginProbe?: Record<string, unknown> };

describe("PluginHost (the console's control surface)", () => {
  let sandbox: PluginSandbox;
  let host: PluginHost;
  const tools = new ToolRegistry(BUILTIN_TOOL_NAMES);

  /** The bot config's `plugins` section the host reads; tests edit it and call `applySettings`. */
  let settings: PluginSettings;
  const startHost = async (overrides: Partial<PluginSettings> = {}) => {
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
      ajv: new Ajv({ useDefaults: true, allErrors: true, strict: false }),
      monitor: new MonitorHub(),
      logger: createLogger({ level: "silent" }),
      watch: false,
    });
    await host.start();
  };

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

  it("finds new plugin folders and disables by config on refresh (seed 004's refresh_tools)", async () => {
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

  it("refuses seed-004 declarations wrapped by the author or missing from dynamicImports", async () => {
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
    expect(host.get("wrapped")).toMatchObject({
      state: "failed",
      error: expect.stringContaining(
        'functionDeclarations[0] is wrapped in {"type":"function","function":…}',
      ),
    });
    expect(host.get("unmapped")).toMatchObject({
      state: "failed",
      error: expect.stringContaining('"g" but dynamicImports does not say which module has it'),
    });
    expect(tools.all()).toEqual([]);
  });

  it("refuses tool names that clash with built-ins or another plugin", async () => {
    sandbox = new PluginSandbox();
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
