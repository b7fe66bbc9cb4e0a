import { HOST_COMMANDS_OWNER } from "../components/command-registry.ts";
import { toolSpecOf } from "../components/tool-registry.ts";
import type { ToolComponent } from "../components/types.ts";
import type { ToolSpec } from "../llm/types.ts";
import type { PromptTemplates } from "../prompts/templates.ts";
import { Bm25Index } from "../util/bm25.ts";

export const TOOL_SEARCH_TOOL = "tool_search";

/** `agent.deferToolsAbove`, `agent.alwaysOnTools`, `agent.toolSearchResults`. */
export interface ToolDeferralSettings {
  deferToolsAbove: number;
  alwaysOnTools: readonly string[];
  toolSearchResults: number;
}

/**
 * One turn's choice of the plugin and MCP tools the planner is shown. Up to
 * `deferToolsAbove` tools it sees them all. Beyond that it sees the always-on ones and
 * `tool_search`, which ranks the others by name and description (BM25) and makes the best
 * ones callable for the rest of the turn: they are declared from the next round on, after
 * the tools declared before, so the requests of the turn keep their common prefix.
 */
export class ToolDeferral {
  /** Tools `tool_search` found this turn, in the order found. */
  private readonly found: ToolComponent[] = [];

  constructor(
    private readonly settings: ToolDeferralSettings,
    private readonly prompts: PromptTemplates,
  ) {}

  /** The declarations for a planner request, from every tool that applies to the session. */
  specs(tools: ToolComponent[]): ToolSpec[] {
    if (!this.defers(tools)) return tools.map(toolSpecOf);
    return [
      ...tools.filter((tool) => this.alwaysOn(tool)).map(toolSpecOf),
      this.searchSpec(),
      ...this.found.filter((tool) => tools.includes(tool)).map(toolSpecOf),
    ];
  }

  /** The tool a call names, when the planner may call it: a deferred tool only once found. */
  find(name: string, tools: ToolComponent[]): ToolComponent | undefined {
    const defers = this.defers(tools);
    if (defers && name === TOOL_SEARCH_TOOL) return this.searchTool(tools);
    const tool = tools.find((candidate) => candidate.name === name);
    if (!tool || !defers) return tool;
    return this.alwaysOn(tool) || this.found.includes(tool) ? tool : undefined;
  }

  private defers(tools: ToolComponent[]): boolean {
    return this.settings.deferToolsAbove > 0 && tools.length > this.settings.deferToolsAbove;
  }

  private alwaysOn(tool: ToolComponent): boolean {
    const listed = this.settings.alwaysOnTools;
    return listed.includes(tool.name) || listed.includes(tool.pluginId) || listed.includes(tool.fullName);
  }

  private searchSpec(): ToolSpec {
    return {
      name: TOOL_SEARCH_TOOL,
      description: this.prompts.render("tool_search"),
      parameters: {
        type: "object",
        properties: { query: { type: "string", description: this.prompts.render("tool_search_query") } },
        required: ["query"],
        additionalProperties: false,
      },
    };
  }

  /** `tool_search` as a host tool, so hooks, the timeline and the turn's tool rules apply to it too. */
  private searchTool(tools: ToolComponent[]): ToolComponent {
    return {
      kind: "tool",
      pluginId: HOST_COMMANDS_OWNER,
      name: TOOL_SEARCH_TOOL,
      fullName: `${HOST_COMMANDS_OWNER}.${TOOL_SEARCH_TOOL}`,
      description: this.prompts.render("tool_search"),
      scope: { chatScope: "all" },
      parameters: this.searchSpec().parameters,
      timeoutMs: 5_000,
      validate: (args) =>
        typeof args.query === "string" && args.query.trim() !== ""
          ? undefined
          : "query must be a non-empty string",
      invoke: async (args) => this.search(String(args.query), tools),
    };
  }

  private search(query: string, tools: ToolComponent[]): string {
    const deferred = tools.filter((tool) => !this.alwaysOn(tool));
    const index = new Bm25Index(deferred, (tool) => `${tool.name} ${tool.name} ${tool.description}`);
    const hits = index.search(query, this.settings.toolSearchResults);
    if (hits.length === 0) return this.prompts.render("result_tool_search_none");
    for (const tool of hits) if (!this.found.includes(tool)) this.found.push(tool);
    const lines = hits.map((tool) => `${tool.name}: ${tool.description.split("\n")[0] ?? ""}`).join("\n");
    return this.prompts.render("result_tool_search", { tools: lines });
  }
}
