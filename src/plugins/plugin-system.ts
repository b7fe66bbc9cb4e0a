import type { ChatAdapter } from "../adapters/types.ts";
import type { ComponentSet } from "../components/component-set.ts";
import type { CallContexts } from "../components/types.ts";
import type { Logger } from "../log/logger.ts";
import type { Monitor } from "../monitor/monitor.ts";
import type { PromptTemplates } from "../prompts/templates.ts";
import type { Outbox } from "../reply/outbox.ts";
import type { MessageStore } from "../store/types.ts";
import { builtinCommands } from "./builtin-commands.ts";
import { type CallContextDeps, CallContextFactory } from "./call-context.ts";
import { CommandDispatcher, type CommandDispatcherDeps } from "./command-dispatcher.ts";
import type { PluginSettings } from "./config.ts";
import type { ProcessIsolation } from "./isolation/process-isolation.ts";
import { PluginModuleLoader } from "./module-loader.ts";
import { NodePluginRuntime } from "./node-runtime.ts";
import { createPluginAjv } from "./plugin-ajv.ts";
import { PluginHost } from "./plugin-host.ts";
import type { DeclaredPlugin } from "./plugin-status.ts";
import type { PluginRuntime } from "./runtime.ts";
import type { StdioChannels } from "./stdio/channel-adapter.ts";
import { pythonLaunch, stdioLaunch } from "./stdio/launch.ts";
import { StdioPluginRuntime } from "./stdio/stdio-runtime.ts";

export interface PluginSystemOptions {
  settings: () => PluginSettings;
  /** The registries plugins fill (and the stages read). */
  components: ComponentSet;
  outbox: Outbox;
  adapterById: (id: string) => ChatAdapter | undefined;
  messages: MessageStore;
  /** `bot.admins`. */
  admins: () => string[];
  /** The prompt templates in use: what the host's commands answer. */
  templates: () => PromptTemplates;
  /** Where stdio channel plugins' chats enter and leave (the stdio channel adapter). */
  channels: StdioChannels;
  /** The bot's name and aliases. */
  names: () => string[];
  /** Whether a chat command may run and answer now (`limits`' turns per minute count commands too). */
  admitCommand?: CommandDispatcherDeps["admitReply"];
  /** The fetcher of a message's account: plugins fetch the pictures of the message they were called for. */
  pictureFetcherFor: CallContextDeps["pictureFetcherFor"];
  /** Long-term memory for plugin calls (`context.memory`), under the bot's memory rules. */
  pluginMemory: CallContextDeps["pluginMemory"];
  pluginSpeech: CallContextDeps["pluginSpeech"];
  /** Starts stdio and Python plugin processes (shared with the MCP servers). */
  isolation: ProcessIsolation;
  /** The secret values of the bot's config, redacted from plugin processes' stderr. */
  secrets: () => readonly string[];
  monitor: Monitor;
  logger: Logger;
  /** Reload plugins when their files change. Default true. */
  watch?: boolean;
  /** The MCP servers' runtime, and the servers it declares as plugins (`mcp:<id>`). */
  mcp?: PluginRuntime & { declared(): DeclaredPlugin[] };
  /** A plugin or component the `/plugins` command switched on or off (in a cluster, the others follow). */
  switched?: (ref: string, enabled: boolean) => void;
}

/** Loading and lifecycle of plugins into the component set; `app.ts` wires the set to the stages. */
export interface PluginSystem {
  /** Control surface for chat commands and the console. */
  host: PluginHost;
  /** What a component call gets (`bot`, `event`); agent turns build theirs with it too. */
  contexts: CallContexts;
  /** Answers commands before the agent sees a message. */
  commands: CommandDispatcher;
  /**
   * Loads the host's own commands at once (before the returned promise's first wait), then
   * the plugins; stdio plugins go on activating in the background.
   */
  start(): Promise<void>;
  /** Settles once `start` is done and every plugin's first activation attempt is over. */
  activated(): Promise<void>;
  /** Disposes the host's own commands and unloads every plugin. */
  stop(): Promise<void>;
}

export function createPluginSystem(options: PluginSystemOptions): PluginSystem {
  const { components, logger } = options;
  let host: PluginHost | undefined;
  const stdioDeps = {
    channels: options.channels,
    systemParts: components.systemParts,
    monitor: options.monitor,
    isolation: options.isolation,
    trusted: (pluginId: string) => options.settings().trusted.includes(pluginId),
    secrets: options.secrets,
  };
  const contexts = new CallContextFactory({
    outbox: options.outbox,
    adapterById: options.adapterById,
    messages: options.messages,
    names: options.names,
    refreshTools: () => host?.refreshTools() ?? Promise.resolve(),
    pictureFetcherFor: options.pictureFetcherFor,
    pluginMemory: options.pluginMemory,
    pluginSpeech: options.pluginSpeech,
  });
  host = new PluginHost({
    settings: options.settings,
    registries: {
      tool: components.tools,
      command: components.commands,
      hook: components.hooks,
      enricher: components.enrichers,
      reply_extension: components.replyExtensions,
    },
    runtimes: {
      node: new NodePluginRuntime(new PluginModuleLoader()),
      stdio: new StdioPluginRuntime({ ...stdioDeps, launch: stdioLaunch }),
      python: new StdioPluginRuntime({ ...stdioDeps, launch: pythonLaunch }),
      ...(options.mcp && { mcp: options.mcp }),
    },
    createAjv: createPluginAjv,
    monitor: options.monitor,
    logger: logger.child({ stage: "plugins" }),
    ...(options.watch === undefined ? {} : { watch: options.watch }),
    ...(options.mcp && { declared: () => options.mcp?.declared() ?? [] }),
  });
  const started = host;
  const builtins = builtinCommands({
    commands: components.commands,
    tools: components.tools,
    host: started,
    approvals: components.approvals,
    templates: options.templates,
    ...(options.switched ? { switched: options.switched } : {}),
  });
  for (const command of builtins) components.hostCommands.add(command);
  return {
    host: started,
    contexts,
    commands: new CommandDispatcher({
      commands: components.commands,
      contexts,
      admins: options.admins,
      names: options.names,
      templates: options.templates,
      ...(options.admitCommand && { admitReply: options.admitCommand }),
      logger,
    }),
    async start() {
      components.hostCommands.load();
      await started.start();
    },
    activated: () => started.activated(),
    async stop() {
      components.hostCommands.dispose();
      await started.stop();
    },
  };
}
