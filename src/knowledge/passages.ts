import { basename } from "node:path";
import type { ChatMessage } from "../message/inbound.ts";
import { renderSegments } from "../message/render.ts";
import type { PromptTemplates } from "../prompts/templates.ts";
import type { KnowledgeSettings } from "./config.ts";
import type { KnowledgeHit, KnowledgeService } from "./knowledge-service.ts";

/** Most characters of the new messages a turn's retrieval searches with. */
const MAX_QUERY_CHARS = 400;
const CJK = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Hangul}]/gu;

/** Where a passage is from, as a reply may cite it: `faq.md › 退款 › 时限, p. 3`. */
export function sourceOf(hit: KnowledgeHit): string {
  const parts = [basename(hit.document.path), ...(hit.chunk.heading === "" ? [] : [hit.chunk.heading])];
  return `${parts.join(" › ")}${hit.chunk.page === undefined ? "" : `, p. ${hit.chunk.page}`}`;
}

/** A rough token count, the same for every provider: one per CJK character, one per 4 other characters. */
export function estimatedTokens(text: string): number {
  const cjk = text.match(CJK)?.length ?? 0;
  return cjk + Math.ceil((text.length - cjk) / 4);
}

export interface RetrievalDeps {
  knowledge: KnowledgeService;
  settings: () => KnowledgeSettings;
  prompts: () => PromptTemplates;
}

/**
 * The knowledge section of a turn's prompts (empty when nothing fits): the passages of the
 * chat's documents that best answer its new messages, within `knowledge.autoRetrieveLimit`
 * passages and `autoRetrieveTokens`.
 */
export async function knowledgeSection(
  deps: RetrievalDeps,
  turn: { sessionId: string; messages: ChatMessage[] },
): Promise<string> {
  const settings = deps.settings();
  if (!settings.autoRetrieve || settings.autoRetrieveLimit === 0) return "";
  const query = turn.messages
    .filter((message) => !message.fromSelf)
    .map((message) => renderSegments(message.segments))
    .join("\n")
    .slice(-MAX_QUERY_CHARS);
  const hits = await deps.knowledge.search(query, turn.sessionId, {
    limit: settings.autoRetrieveLimit,
    forPrompt: true,
  });
  const prompts = deps.prompts();
  const passages: string[] = [];
  let tokens = 0;
  for (const hit of hits) {
    const passage = prompts.render("knowledge_passage", {
      number: String(passages.length + 1),
      source: sourceOf(hit),
      text: hit.chunk.text,
    });
    tokens += estimatedTokens(passage);
    if (tokens > settings.autoRetrieveTokens) break;
    passages.push(passage);
  }
  if (passages.length === 0) return "";
  return prompts.render("knowledge", { passages: passages.join("\n") });
}
