import type { PluginToolComponent } from "../components/types.ts";
import type { PromptTemplates } from "../prompts/templates.ts";
import { Bm25Index } from "../util/bm25.ts";

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
  private readonly found: PluginToolComponent[] = [];

  constructor(
    private readonly settings: ToolDeferralSettings,
    private readonly prompts: PromptTemplates,
  ) {}

  /**
   * The plugin tools a planner request declares: all of them (`shown`), or, when deferring,
   * the always-on ones and, after `tool_search`, those it found (`found`).
   */
  declared(tools: PluginToolComponent[]): {
    deferring: boolean;
    shown: PluginToolComponent[];
    found: PluginToolComponent[];
  } {
    if (!this.defers(tools)) return { deferring: false, shown: tools, found: [] };
    return {
      deferring: true,
      shown: tools.filter((tool) => this.alwaysOn(tool)),
      found: this.found.filter((tool) => tools.includes(tool)),
    };
  }

  /** The tool a call names, when the planner may call it: a deferred tool only once found. */
  find(name: string, tools: PluginToolComponent[]): PluginToolComponent | undefined {
    const tool = tools.find((candidate) => candidate.name === name);
    if (!tool || !this.defers(tools)) return tool;
    return this.alwaysOn(tool) || this.found.includes(tool) ? tool : undefined;
  }

  private defers(tools: PluginToolComponent[]): boolean {
    return this.settings.deferToolsAbove > 0 && tools.length > this.settings.deferToolsAbove;
  }

  private alwaysOn(tool: PluginToolComponent): boolean {
    const listed = this.settings.alwaysOnTools;
    return listed.includes(tool.name) || listed.includes(tool.pluginId) || listed.includes(tool.fullName);
  }

  /** `tool_search`: ranks the deferred tools and makes the best ones callable for the rest of the turn. */
  search(query: string, tools: PluginToolComponent[]): string {
    const deferred = tools.filter((tool) => !this.alwaysOn(tool));
    const index = new Bm25Index(deferred, (tool) => `${tool.name} ${tool.name} ${tool.description}`);
    const hits = index.search(query, this.settings.toolSearchResults);
    if (hits.length === 0) return this.prompts.render("result_tool_search_none");
    for (const tool of hits) if (!this.found.includes(tool)) this.found.push(tool);
    const lines = hits.map((tool) => `${tool.name}: ${tool.description.split("\n")[0] ?? ""}`).join("\n");
    return this.prompts.render("result_tool_search", { tools: lines });
  }
}
