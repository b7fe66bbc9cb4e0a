import { buildCommand } from "../components/builders.ts";
import { type CommandRegistry, HOST_COMMANDS_OWNER } from "../components/command-registry.ts";
import type { ApprovalService } from "../components/hooks-approval.ts";
import { isPluginTool, type ToolRegistry } from "../components/tool-registry.ts";
import type { CallContext, CommandComponent, CommandMatch } from "../components/types.ts";
import type { PromptTemplates } from "../prompts/templates.ts";
import type { OutgoingMessage } from "../sdk/types.ts";
import type { PluginChangeResult, PluginHost, PluginStatus } from "./plugin-host.ts";
import type { ProcessStatus } from "./status-types.ts";

export interface BuiltinCommandDeps {
  commands: CommandRegistry;
  tools: ToolRegistry;
  host: PluginHost;
  approvals: ApprovalService;
  /** The prompt templates in use: what /approve and /deny answer. */
  templates: () => PromptTemplates;
  /** A plugin or component `/plugins` switched on or off (in a cluster, the others follow). */
  switched?: (ref: string, enabled: boolean) => void;
}

type Handler = (
  match: CommandMatch,
  call: CallContext & { isAdmin: boolean },
) => Promise<OutgoingMessage | undefined>;

/** /help, /plugins, /approve and /deny, the plugin system's part of the host's commands. */
export function builtinCommands(deps: BuiltinCommandDeps): CommandComponent[] {
  const add = (name: string, options: Parameters<typeof buildCommand>[1], handler: Handler) =>
    buildCommand({ pluginId: HOST_COMMANDS_OWNER, name }, options, handler).component;
  return [
    add(
      "help",
      { description: "列出本会话可用的命令和工具", prefix: ["/help", "/帮助"] },
      async (_match, call) => helpText(deps, call),
    ),
    add(
      "plugins",
      {
        description: "管理插件",
        usage: "[list | enable <id[.组件]> | disable <id[.组件]> | reload <id>]",
        admin_only: true,
      },
      async (match) => pluginsCommand(deps, match.args),
    ),
    add(
      "approve",
      { description: "批准一次等待确认的工具调用", usage: "<id>", admin_only: true },
      async (match, call) => answerApproval(deps, match.args[0], call.event.user_id, true),
    ),
    add(
      "deny",
      { description: "拒绝一次等待确认的工具调用", usage: "<id>", admin_only: true },
      async (match, call) => answerApproval(deps, match.args[0], call.event.user_id, false),
    ),
  ];
}

function helpText(deps: BuiltinCommandDeps, call: CallContext & { isAdmin: boolean }): string {
  const session = call.message;
  const commands = deps.commands
    .visibleIn(session)
    // A command switched off by its settings (no `/summary` words) has no synopsis.
    .filter((command) => (call.isAdmin || !command.adminOnly) && command.synopsis !== "")
    .map((command) => `${command.synopsis}${command.description ? ` — ${command.description}` : ""}`);
  const tools = deps.tools
    .visibleIn(session)
    .filter(isPluginTool)
    .map((tool) => `${tool.name}（${tool.pluginId}）— ${firstLine(tool.description)}`);
  return [
    "命令：",
    ...commands.map((line) => `  ${line}`),
    "工具（对我说话时我会按需使用）：",
    ...(tools.length > 0 ? tools.map((line) => `  ${line}`) : ["  （无）"]),
  ].join("\n");
}

async function pluginsCommand(deps: BuiltinCommandDeps, args: string[]): Promise<string> {
  const { host } = deps;
  const [action = "list", target] = args;
  if (action === "list") return host.list().map(describePlugin).join("\n") || "没有插件。";
  if (!target) return "用法：/plugins enable|disable <插件id[.组件]>，/plugins reload <插件id>";
  let result: PluginChangeResult;
  if (action === "enable") result = await host.enable(target);
  else if (action === "disable") result = await host.disable(target);
  else if (action === "reload") result = await host.reload(target);
  else return `不认识的操作 ${action}：可用 list、enable、disable、reload`;
  if (result.ok && action !== "reload") deps.switched?.(target, action === "enable");
  return result.ok ? describePlugin(result.status) : `失败：${result.error}`;
}

const PROCESS_STATES: Record<ProcessStatus["state"], string> = {
  starting: "激活中",
  running: "运行中",
  errored: "出错",
  restarting: "重启中",
  failed: "出错，不再重启",
  stopped: "已停止",
};

function describePlugin(status: PluginStatus): string {
  const state = { enabled: "已启用", disabled: "已停用", failed: "加载失败" }[status.state];
  const components = status.components
    .map((component) => `${component.kind}:${component.name}${component.enabled ? "" : "(停用)"}`)
    .join(", ");
  const error = status.error ? `\n  错误：${status.error}` : "";
  // A stdio plugin's process that is not running (activating, crashed, restarting, given up) says why.
  const process =
    status.process && status.process.state !== "running"
      ? `\n  进程：${PROCESS_STATES[status.process.state]}${status.process.lastError ? `（${status.process.lastError}）` : ""}`
      : "";
  return `${status.id}${status.version ? ` ${status.version}` : ""} [${state}]${components ? ` ${components}` : ""}${error}${process}`;
}

function answerApproval(
  deps: BuiltinCommandDeps,
  id: string | undefined,
  by: string,
  approve: boolean,
): string {
  const templates = deps.templates();
  if (!id) return templates.render("approval_usage", { command: approve ? "approve" : "deny" });
  const answered = approve ? deps.approvals.approve(id, by) : deps.approvals.deny(id, by);
  if (!answered) return templates.render("approval_unknown", { id });
  return templates.render(approve ? "approval_approved" : "approval_refused", { id });
}

function firstLine(text: string): string {
  return text.split("\n")[0] ?? "";
}
