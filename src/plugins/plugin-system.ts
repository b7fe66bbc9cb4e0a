import { Ajv } from "ajv";
import ajvFormats from "ajv-formats";
import type { ChatAdapter } from "../adapters/types.ts";
import { EnricherRegistry } from "../agent/enrichers.ts";
import { HookRegistry, HookRunner } from "../agent/hooks.ts";
import { ApprovalService } from "../agent/hooks-approval.ts";
import { SystemPartsRegistry } from "../agent/system-parts.ts";
import { ToolRegistry } from "../agent/tool-registry.ts";
import { TurnPlugins } from "../agent/turn-plugins.ts";
import type { Logger } from "../log/logger.ts";
import type { Monitor } from "../monitor/monitor.ts";
import { ReplyExtensionRegistry } from "../reply/extension-registry.ts";
import type { Outbox } from "../reply/outbox.ts";
import type { MessageStore } from "../store/types.ts";
import { registerBuiltinCommands } from "./builtin-commands.ts";
import { CallContextFactory } from "./call-context.ts";
import { CommandDispatcher, CommandRegistry } from "./command-dispatcher.ts";
import type { Disposer } from "./components.ts";
import type { PluginSettings } from "./config.ts";
import { PluginModuleLoader } from "./module-loader.ts";
import { NodePluginRuntime } from "./node-runtime.ts";
import { PluginHost } from "./plugin-host.ts";
import type { StdioChannels } from "./stdio/channel-adapter.ts";
import { StdioPluginRuntime } from "./stdio/stdio-runtime.ts";

export interface PluginSystemOptions {
  settings: () => PluginSettings;
  outbox: Outbox;
  adapterById: (id: string) => ChatAdapter | undefined;
  messages: MessageStore;
  /** `bot.admins`. */
  admins: () => string[];
  /** Where stdio channel plugins' chats enter and leave (the stdio channel adapter). */
  channels: StdioChannels;
  /** The bot's name and aliases. */
  names: () => string[];
  monitor: Monitor;
  logger: Logger;
  /** Reload plugins when their files change. Default true. */
  watch?: boolean;
}

/** Everything plugins plug into, built together; `app.ts` wires the parts to the stages. */
export interface PluginSystem {
  /** Control surface for chat commands and the console. */
  host: PluginHost;
  /** Tool calls waiting for an admin (PreToolUse "ask"). */
  approvals: ApprovalService;
  /** What plugins add to agent turns (tools, enrichers, hooks). */
  turns: TurnPlugins;
  /** Answers commands before the agent sees a message. */
  commands: CommandDispatcher;
  registries: {
    tools: ToolRegistry;
    commands: CommandRegistry;
    hooks: HookRegistry;
    enrichers: EnricherRegistry;
    replyExtensions: ReplyExtensionRegistry;
  };
  /**
   * Registers the built-in commands at once (before the returned promise's first wait), then
   * loads the plugins; stdio plugins go on activating in the background.
   */
  start(): Promise<void>;
  /** Settles once `start` is done and every plugin's first activation attempt is over. */
  activated(): Promise<void>;
  stop(): Promise<void>;
}

export function createPluginSystem(options: PluginSystemOptions): PluginSystem {
  const { logger } = options;
  const ajv = new Ajv({ useDefaults: true, allErrors: true, strict: false });
  // ajv-formats is CommonJS: under NodeNext its plugin function is the `default` property.
  ajvFormats.default(ajv);
  const registries = {
    tools: new ToolRegistry(),
    commands: new CommandRegistry(),
    hooks: new HookRegistry(),
    enrichers: new EnricherRegistry(),
    replyExtensions: new ReplyExtensionRegistry(),
  };
  const approvals = new ApprovalService();
  const systemParts = new SystemPartsRegistry();
  let host: PluginHost | undefined;
  const contexts = new CallContextFactory({
    outbox: options.outbox,
    adapterById: options.adapterById,
    messages: options.messages,
    names: options.names,
    refreshTools: () => host?.refresh() ?? Promise.resolve(),
  });
  host = new PluginHost({
    settings: options.settings,
    registries: {
      tool: registries.tools,
      command: registries.commands,
      hook: registries.hooks,
      enricher: registries.enrichers,
      reply_extension: registries.replyExtensions,
    },
    runtimes: {
      node: new NodePluginRuntime(new PluginModuleLoader()),
      stdio: new StdioPluginRuntime({ channels: options.channels, systemParts, monitor: options.monitor }),
    },
    ajv,
    logger: logger.child({ stage: "plugins" }),
    ...(options.watch === undefined ? {} : { watch: options.watch }),
  });
  const started = host;
  let removeBuiltins: Disposer = () => {};
  return {
    host: started,
    approvals,
    turns: new TurnPlugins({
      tools: registries.tools,
      hooks: new HookRunner(registries.hooks, options.monitor, logger),
      enrichers: registries.enrichers,
      systemParts,
      approvals,
      contexts,
      logger,
    }),
    commands: new CommandDispatcher({
      commands: registries.commands,
      contexts,
      admins: options.admins,
      names: options.names,
      logger,
    }),
    registries,
    async start() {
      removeBuiltins = registerBuiltinCommands({
        commands: registries.commands,
        tools: registries.tools,
        host: started,
        approvals,
      });
      await started.start();
    },
    activated: () => started.activated(),
    async stop() {
      removeBuiltins();
      await started.stop();
    },
  };
}
