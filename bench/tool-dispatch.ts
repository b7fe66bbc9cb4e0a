/**
 * What a plugin tool call costs beyond the handler itself: the same trivial handler called
 * directly and through the plugin path a turn uses (TurnPluginScope: PreToolUse gate, tool
 * lookup, argument validation with defaults, timeout and abort wiring, in-flight counting,
 * the SDK handler context, PostToolUse), with a real plugin loaded by a real PluginHost.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TurnPlugins } from "../src/agent/turn-plugins.ts";
import type { Batch } from "../src/chat/batch.ts";
import { CommandRegistry } from "../src/components/command-registry.ts";
import { EnricherRegistry } from "../src/components/enrichers.ts";
import { ReplyExtensionRegistry } from "../src/components/extension-registry.ts";
import { HookRegistry, HookRunner } from "../src/components/hooks.ts";
import { ApprovalService } from "../src/components/hooks-approval.ts";
import { SystemPartsRegistry } from "../src/components/system-parts.ts";
import { ToolRegistry } from "../src/components/tool-registry.ts";
import { createLogger } from "../src/log/logger.ts";
import type { ChatMessage } from "../src/message/inbound.ts";
import { MonitorHub } from "../src/monitor/monitor.ts";
import { CallContextFactory } from "../src/plugins/call-context.ts";
import { PluginModuleLoader } from "../src/plugins/module-loader.ts";
import { NodePluginRuntime } from "../src/plugins/node-runtime.ts";
import { createPluginAjv } from "../src/plugins/plugin-ajv.ts";
import { PluginHost } from "../src/plugins/plugin-host.ts";
import { shippedPromptTemplates } from "../src/prompts/templates.ts";
import type { Outbox } from "../src/reply/outbox.ts";
import type { PluginMemoryAccess, PluginSpeech } from "../src/sdk/types.ts";
import type { MessageStore } from "../src/store/types.ts";
import { testPictureFetcher } from "../test/support/picture-fetching.ts";
import { round } from "./child.ts";

const CALLS = 200_000;
const ROUNDS = 5;

const PLUGIN = `import { Plugin, Tool } from "tsumugi/sdk";
export default class Echo extends Plugin {
  @Tool("echo", { description: "echo", parameters: [{ name: "n", type: "integer", required: true }] })
  async echo(args: { n: number }) { return { n: args.n }; }
}
`;

export async function measureToolDispatch(): Promise<{
  overheadMs: number;
  directMs: number;
  pluginMs: number;
}> {
  const root = mkdtempSync(join(tmpdir(), "tsumugi-bench-plugins-"));
  mkdirSync(join(root, "echo"));
  writeFileSync(
    join(root, "echo", "plugin.json"),
    JSON.stringify({ id: "echo", version: "1.0.0", entry: "index.ts", sdk: "^1.0.0" }),
  );
  writeFileSync(join(root, "echo", "index.ts"), PLUGIN);
  const logger = createLogger({ level: "silent" });
  const registries = {
    tool: new ToolRegistry(),
    command: new CommandRegistry(),
    hook: new HookRegistry(),
    enricher: new EnricherRegistry(),
    reply_extension: new ReplyExtensionRegistry(),
  };
  const host = new PluginHost({
    settings: () => ({ dirs: [root], disabled: [], config: {} }),
    registries,
    runtimes: { node: new NodePluginRuntime(new PluginModuleLoader()) },
    createAjv: createPluginAjv,
    monitor: new MonitorHub(),
    logger,
    watch: false,
  });
  await host.start();
  const turns = new TurnPlugins({
    tools: registries.tool,
    builtins: [],
    hooks: new HookRunner(registries.hook, new MonitorHub(), logger),
    enrichers: registries.enricher,
    systemParts: new SystemPartsRegistry(),
    approvals: new ApprovalService(),
    contexts: new CallContextFactory({
      outbox: {} as Outbox,
      adapterById: () => undefined,
      messages: {} as MessageStore,
      names: () => ["紬"],
      refreshTools: async () => {},
      pictureFetcherFor: () => testPictureFetcher(),
      pluginMemory: () => ({}) as PluginMemoryAccess,
      pluginSpeech: () => ({}) as PluginSpeech,
    }),
    deferral: () => ({ deferToolsAbove: 0, alwaysOnTools: [], toolSearchResults: 5 }),
    logger,
  });
  const message: ChatMessage = {
    platform: "onebot",
    adapterId: "qq",
    selfId: "10000",
    sessionId: "onebot:10000:group:20000",
    chatType: "group",
    groupId: "20000",
    userId: "30001",
    senderName: "Alice",
    messageId: "1",
    segments: [{ type: "text", data: { text: "echo" } }],
    time: Date.now(),
    fromSelf: false,
  };
  const batch: Batch = {
    kind: "realtime",
    sessionId: message.sessionId,
    messages: [message],
    triggerIds: ["1"],
  };
  const scope = turns.forTurn({
    batch,
    replyId: "bench",
    signal: new AbortController().signal,
    prompts: shippedPromptTemplates("zh"),
    pictures: new Map(),
  });
  const texts = { prompts: shippedPromptTemplates("zh"), mode: "planner" as const };
  const direct = async (args: { n: number }) => ({ n: args.n });
  const viaPlugin = async (n: number) => {
    const call = { id: "c", name: "echo", input: { n } };
    const input = { n };
    await scope.admit(call, input);
    const offered = (await scope.offerTools(texts, batch)).find(call.name);
    if (!offered || !("plugin" in offered)) throw new Error("the bench plugin's tool is not offered");
    offered.plugin.validate(input);
    const outcome = await scope.runTool(offered.plugin, call, input);
    await scope.settled(call, input, outcome.kind === "result" ? outcome.output : undefined);
    return outcome;
  };
  const time = async (run: (n: number) => Promise<unknown>) => {
    const started = performance.now();
    for (let n = 0; n < CALLS; n++) await run(n);
    return (performance.now() - started) / CALLS;
  };
  let directMs = Number.POSITIVE_INFINITY;
  let pluginMs = Number.POSITIVE_INFINITY;
  for (let i = 0; i < ROUNDS; i++) {
    directMs = Math.min(directMs, await time((n) => direct({ n })));
    pluginMs = Math.min(pluginMs, await time(viaPlugin));
  }
  await host.stop();
  rmSync(root, { recursive: true, force: true });
  return {
    overheadMs: round(pluginMs - directMs, 4),
    directMs: round(directMs, 4),
    pluginMs: round(pluginMs, 4),
  };
}
