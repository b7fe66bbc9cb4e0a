import type { ChatAdapter } from "../adapters/types.ts";
import type { Cluster } from "../cluster/cluster.ts";
import type { ComponentSet } from "../components/component-set.ts";
import type { PluginSpeechSource } from "../components/types.ts";
import { configJsonSchema, type TsumugiConfig } from "../config/schema.ts";
import type { Logger } from "../log/logger.ts";
import { McpRuntime } from "../mcp/mcp-runtime.ts";
import { McpServers } from "../mcp/mcp-servers.ts";
import type { MemoryService } from "../memory/memory-service.ts";
import { createPluginMemoryAccess } from "../memory/plugin-access.ts";
import { sceneAround } from "../memory/visibility.ts";
import { dataDirectory } from "../models/data-directory.ts";
import type { Monitor } from "../monitor/monitor.ts";
import { ProcessIsolation } from "../plugins/isolation/process-isolation.ts";
import { createPluginAjv } from "../plugins/plugin-ajv.ts";
import { createPluginSystem, type PluginSystem, type PluginSystemOptions } from "../plugins/plugin-system.ts";
import type { StdioChannels } from "../plugins/stdio/channel-adapter.ts";
import type { PromptTemplates } from "../prompts/templates.ts";
import type { Outbox } from "../reply/outbox.ts";
import { secretValuesOf } from "../schema/secret-paths.ts";
import type { MessageStore } from "../store/types.ts";

export interface PluginHostsParts {
  config: () => TsumugiConfig;
  /** The config file in use, if any: hidden from isolated processes like the data folder. */
  configFile: string | undefined;
  /** The registries plugins and MCP servers fill. */
  components: ComponentSet;
  /** Where stdio channel plugins' chats enter and leave. */
  channels: StdioChannels;
  outbox: Outbox;
  adapters: ReadonlyMap<string, ChatAdapter>;
  messages: MessageStore;
  pictureFetcherFor: PluginSystemOptions["pictureFetcherFor"];
  /** Whether a chat command may run and answer now: the turn limits count it. */
  admitCommand: NonNullable<PluginSystemOptions["admitCommand"]>;
  memory: MemoryService;
  /** The host's text-to-speech for plugin calls (agent/voice-speaking.ts). */
  speech: PluginSpeechSource;
  cluster: Cluster | undefined;
  prompts: { templates(): PromptTemplates };
  monitor: Monitor;
  logger: Logger;
}

/**
 * The plugin system, whose runtimes include the MCP servers', and the console's view of those
 * servers. Untrusted plugin processes and MCP stdio
 * servers start isolated (plugins.sandbox), never seeing the config file or data folder; what
 * they print is logged without the config's secrets.
 */
export function createPluginHosts(parts: PluginHostsParts): { plugins: PluginSystem; mcp: McpServers } {
  const { config, components, memory, messages, cluster, monitor, logger } = parts;
  const isolation = new ProcessIsolation({
    settings: () => config().plugins,
    hidden: () => [...(parts.configFile ? [parts.configFile] : []), dataDirectory(config().storage.url)],
    logger: logger.child({ stage: "plugins" }),
  });
  const secrets = secretValuesOf(configJsonSchema, config);
  // MCP servers are plugins ("mcp:<id>") the plugin host loads, lists and switches with the others.
  const mcpRuntime = new McpRuntime({
    settings: () => config().mcp,
    createAjv: createPluginAjv,
    isolation,
    secrets,
    monitor,
    logger,
  });
  const plugins = createPluginSystem({
    components,
    settings: () => config().plugins,
    channels: parts.channels,
    outbox: parts.outbox,
    adapterById: (id) => parts.adapters.get(id),
    messages,
    admins: () => config().bot.admins,
    templates: () => parts.prompts.templates(),
    names: () => [config().bot.name, ...config().bot.aliases],
    admitCommand: parts.admitCommand,
    pictureFetcherFor: parts.pictureFetcherFor,
    mcp: mcpRuntime,
    ...(cluster && { switched: (ref: string, enabled: boolean) => cluster.pluginSwitched(ref, enabled) }),
    pluginMemory: (message, pluginId, replyId) =>
      createPluginMemoryAccess({
        memory,
        message,
        scene: () => sceneAround([message], messages, config().chat.history.maxMessages),
        pluginId,
        ...(replyId === undefined ? {} : { replyId }),
      }),
    pluginSpeech: parts.speech,
    isolation,
    secrets,
    monitor,
    logger,
  });
  const mcp = new McpServers({ settings: () => config().mcp, runtime: mcpRuntime, plugins: plugins.host });
  return { plugins, mcp };
}
