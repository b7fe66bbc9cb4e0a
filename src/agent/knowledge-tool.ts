import type { KnowledgeSettings } from "../knowledge/config.ts";
import type { KnowledgeService } from "../knowledge/knowledge-service.ts";
import { sourceOf } from "../knowledge/passages.ts";
import type { ToolSpec } from "../llm/types.ts";
import type { PromptTemplates } from "../prompts/templates.ts";
import type { BuiltinTool } from "./builtin-tools.ts";

export const SEARCH_KNOWLEDGE_TOOL = "search_knowledge";

export function searchKnowledgeSpec(prompts: PromptTemplates): ToolSpec {
  return {
    name: SEARCH_KNOWLEDGE_TOOL,
    description: prompts.render("tool_search_knowledge"),
    parameters: {
      type: "object",
      properties: {
        query: { type: "string", minLength: 1, description: prompts.render("tool_search_knowledge_query") },
      },
      required: ["query"],
      additionalProperties: false,
    },
  };
}

/**
 * `search_knowledge`: offered where some document's scope admits the chat; returns the passages
 * of those documents that best answer the query, each with its source to cite.
 */
export function searchKnowledgeTool(
  knowledge: KnowledgeService,
  settings: () => KnowledgeSettings,
): Pick<BuiltinTool, "spec" | "offered" | "run"> {
  return {
    spec: (texts) => searchKnowledgeSpec(texts.prompts),
    offered: (round) => knowledge.offeredIn(round.session.sessionId),
    run: async (args, call) => {
      const query = (args.query as string).trim();
      if (query === "") return call.invalid("query must be a non-empty string");
      const hits = await knowledge.search(query, call.turn.batch.sessionId, {
        limit: settings().searchLimit,
      });
      const passages = hits.map((hit) => ({ source: sourceOf(hit), text: hit.chunk.text }));
      return { output: { output: { passages } } };
    },
  };
}
