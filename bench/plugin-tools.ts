/**
 * The plugin system alone, for benchmarks of plugin tool calls: the plugins of one folder
 * loaded and activated, their tools reachable, and a tool call's context as the agent builds it.
 */

import { Value } from "@sinclair/typebox/value";
import { createComponentSet } from "../src/components/component-set.ts";
import { isPluginTool } from "../src/components/tool-registry.ts";
import type { CallContext, PluginToolComponent } from "../src/components/types.ts";
import { createLogger } from "../src/log/logger.ts";
import { MonitorHub } from "../src/monitor/monitor.ts";
import { type PluginSettings, pluginsSchema } from "../src/plugins/config.ts";
import { ProcessIsolation } from "../src/plugins/isolation/process-isolation.ts";
import { createPluginSystem } from "../src/plugins/plugin-system.ts";
import { StdioChannelAdapter } from "../src/plugins/stdio/channel-adapter.ts";
import { shippedPromptTemplates } from "../src/prompts/templates.ts";
import type { Outbox } from "../src/reply/outbox.ts";
import type { PluginEvent, PluginMemoryAccess, PluginSpeech } from "../src/sdk/types.ts";
import type { MessageStore } from "../src/store/types.ts";
import { testPictureFetcher } from "../test/support/picture-fetching.ts";

export interface BenchPlugins {
  tool(name: string): PluginToolComponent;
  stop(): Promise<void>;
}

/** Loads the plugins of `root` and waits until every one has activated. */
export async function startBenchPlugins(root: string): Promise<BenchPlugins> {
  const components = createComponentSet();
  // The defaults, as a bot without a config file has them: stdio plugins start isolated where bwrap runs.
  const settings = Value.Default(pluginsSchema, { dirs: [root] }) as PluginSettings;
  const logger = createLogger({ level: "silent" });
  const system = createPluginSystem({
    components,
    settings: () => settings,
    isolation: new ProcessIsolation({ settings: () => settings, hidden: () => [], logger }),
    secrets: () => [],
    outbox: {} as Outbox,
    adapterById: () => undefined,
    messages: {} as MessageStore,
    admins: () => [],
    templates: () => shippedPromptTemplates("zh"),
    channels: new StdioChannelAdapter(() => {}),
    names: () => ["紬"],
    pictureFetcherFor: () => testPictureFetcher(),
    pluginMemory: () => ({}) as PluginMemoryAccess,
    pluginSpeech: () => ({}) as PluginSpeech,
    monitor: new MonitorHub(),
    logger,
    watch: false,
  });
  await system.start();
  // Stdio plugins activate in the background; their tools are there once activation is over.
  await system.activated();
  return {
    tool(name) {
      const found = components.tools.all().find((candidate) => candidate.name === name);
      if (!found || !isPluginTool(found))
        throw new Error(`the bench plugin did not register its tool ${name}`);
      return found;
    },
    stop: () => system.stop(),
  };
}

/** A tool call's context as the agent builds it: a QQ group message's event. */
export function benchToolCall(): CallContext {
  const event: PluginEvent = {
    platform: "onebot",
    adapter_id: "qq",
    self_id: "10000",
    session_id: "onebot:10000:group:20000",
    message_type: "group",
    message_id: "1",
    user_id: "30001",
    group_id: "20000",
    sender: { user_id: "30001", nickname: "Alice" },
    message: [{ type: "text", data: { text: "echo" } }],
    pure_text: "echo",
    time: Date.now(),
  };
  return { event, callId: "call_1", replyId: "reply_1", signal: new AbortController().signal } as CallContext;
}
