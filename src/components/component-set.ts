import { CommandRegistry } from "./command-registry.ts";
import { EnricherRegistry } from "./enrichers.ts";
import { ReplyExtensionRegistry } from "./extension-registry.ts";
import { HookRegistry } from "./hooks.ts";
import { ApprovalService } from "./hooks-approval.ts";
import { HostCommands } from "./host-commands.ts";
import { SystemPartsRegistry } from "./system-parts.ts";
import { ToolRegistry } from "./tool-registry.ts";

/**
 * What plugins fill and the stages read: the registries of every component kind, the stdio
 * channels' prompt parts and the tool calls waiting for an admin. Built once by the
 * composition root; plugins/ adds and removes, agent/ and reply/ only consume.
 */
export interface ComponentSet {
  tools: ToolRegistry;
  commands: CommandRegistry;
  hooks: HookRegistry;
  enrichers: EnricherRegistry;
  replyExtensions: ReplyExtensionRegistry;
  /** Channel prompt parts (stdio `channel_prompt`). */
  systemParts: SystemPartsRegistry;
  /** Tool calls waiting for an admin (PreToolUse "ask"). */
  approvals: ApprovalService;
  /** The host's own commands, a built-in plugin the plugin system loads and disposes. */
  hostCommands: HostCommands;
}

/** Empty registries; the host's own tools and commands are added like any plugin's. */
export function createComponentSet(): ComponentSet {
  const commands = new CommandRegistry();
  return {
    tools: new ToolRegistry(),
    commands,
    hooks: new HookRegistry(),
    enrichers: new EnricherRegistry(),
    replyExtensions: new ReplyExtensionRegistry(),
    systemParts: new SystemPartsRegistry(),
    approvals: new ApprovalService(),
    hostCommands: new HostCommands(commands),
  };
}
