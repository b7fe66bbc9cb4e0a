import type { ToolSpec } from "../llm/types.ts";
import { ComponentRegistry } from "./registry.ts";
import type { Disposer, PluginToolComponent, ToolComponent } from "./types.ts";

/** What every provider accepts as a function name. */
const TOOL_NAME = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;
/** Owner of an MCP server's tools (`mcp:<serverId>`): never a plugin id, which has no colon. */
export const MCP_OWNER_PREFIX = "mcp:";
/** Model-facing names of MCP tools start with this, and only theirs: no plugin tool can take one. */
export const MCP_TOOL_PREFIX = "mcp__";

/** A tool's declaration for the planner request, flat: the LLM layer wraps it per provider. */
export function toolSpecOf(tool: ToolComponent): ToolSpec {
  return { name: tool.name, description: tool.description, parameters: tool.parameters };
}

/** Whether a plugin or an MCP server provides the tool (the host's own tools have no `invoke`). */
export function isPluginTool(tool: ToolComponent): tool is PluginToolComponent {
  return tool.invoke !== undefined && tool.timeoutMs !== undefined;
}

/**
 * Every tool the planner can call: the host's own (reply, no_reply, wait, …, owner `tsumugi`),
 * the plugins' and the MCP servers'. The model knows a tool by its bare name, so names are
 * unique across owners and no plugin tool shadows a host tool.
 */
export class ToolRegistry extends ComponentRegistry<ToolComponent> {
  private readonly byName = new Map<string, ToolComponent>();

  override add(tool: ToolComponent): Disposer {
    if (!TOOL_NAME.test(tool.name)) {
      throw new Error(`tool name "${tool.name}" must match ${TOOL_NAME} (providers refuse other names)`);
    }
    if (tool.name.startsWith(MCP_TOOL_PREFIX) !== tool.pluginId.startsWith(MCP_OWNER_PREFIX)) {
      throw new Error(
        `tool name "${tool.name}": names starting with ${MCP_TOOL_PREFIX} are MCP servers' tools`,
      );
    }
    const holder = this.byName.get(tool.name);
    if (holder && !isPluginTool(holder)) throw new Error(`tool name "${tool.name}" is a built-in tool`);
    if (holder) throw new Error(`tool name "${tool.name}" is already taken by ${holder.fullName}`);
    const remove = super.add(tool);
    this.byName.set(tool.name, tool);
    return () => {
      remove();
      if (this.byName.get(tool.name) === tool) this.byName.delete(tool.name);
    };
  }
}
