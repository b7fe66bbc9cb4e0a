import type { LlmToolCall, ToolSpec } from "../llm/types.ts";
import { ComponentRegistry } from "./registry.ts";
import { type Disposer, inScope, type SessionRef, type ToolComponent } from "./types.ts";

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

/**
 * Plugin tools the planner can call. The model knows a tool by its bare name, so names are
 * unique across plugins and never shadow the built-in reply / no_reply / wait.
 */
export class ToolRegistry extends ComponentRegistry<ToolComponent> {
  private readonly byName = new Map<string, ToolComponent>();
  private readonly builtinNames: ReadonlySet<string>;

  /** `builtinNames`: the planner's own tools (agent/builtin-tools.ts), which no plugin tool may take. */
  constructor(builtinNames: readonly string[]) {
    super();
    this.builtinNames = new Set(builtinNames);
  }

  override add(tool: ToolComponent): Disposer {
    if (!TOOL_NAME.test(tool.name)) {
      throw new Error(`tool name "${tool.name}" must match ${TOOL_NAME} (providers refuse other names)`);
    }
    if (this.builtinNames.has(tool.name)) throw new Error(`tool name "${tool.name}" is a built-in tool`);
    if (tool.name.startsWith(MCP_TOOL_PREFIX) !== tool.pluginId.startsWith(MCP_OWNER_PREFIX)) {
      throw new Error(
        `tool name "${tool.name}": names starting with ${MCP_TOOL_PREFIX} are MCP servers' tools`,
      );
    }
    const holder = this.byName.get(tool.name);
    if (holder) throw new Error(`tool name "${tool.name}" is already taken by ${holder.fullName}`);
    const remove = super.add(tool);
    this.byName.set(tool.name, tool);
    return () => {
      remove();
      if (this.byName.get(tool.name) === tool) this.byName.delete(tool.name);
    };
  }

  /** The tool a model call names, when it is active in the session. */
  find(call: Pick<LlmToolCall, "name">, session: SessionRef): ToolComponent | undefined {
    const tool = this.byName.get(call.name);
    return tool && inScope(tool.scope, session) ? tool : undefined;
  }

  /** Declarations for the planner request, flat: the LLM layer wraps them per provider. */
  specsFor(session: SessionRef): ToolSpec[] {
    return this.visibleIn(session).map(toolSpecOf);
  }
}
