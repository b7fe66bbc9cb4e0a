import type { TsumugiConfig } from "../config/schema.ts";
import { KnowledgeService } from "../knowledge/knowledge-service.ts";
import { knowledgeSection } from "../knowledge/passages.ts";
import type { LlmClient } from "../llm/llm-client.ts";
import type { Logger } from "../log/logger.ts";
import type { PromptTemplates } from "../prompts/templates.ts";
import type { Stores } from "../store/types.ts";

export interface KnowledgeParts {
  stores: Pick<Stores, "knowledge">;
  /** The current client: `app.ts` replaces it on a config reload, so it is read per call. */
  llm: () => LlmClient;
  config: () => TsumugiConfig;
  prompts: { templates(): PromptTemplates };
  logger: Logger;
}

/** The knowledge base and what reads it: the turns' knowledge section and the planner's tools. */
export interface Knowledge {
  service: KnowledgeService;
  /** Indexing the folders, begun in the background: resolves once they are indexed and watched. */
  ready: Promise<void>;
  section: (turn: Parameters<typeof knowledgeSection>[1]) => Promise<string>;
}

/**
 * The knowledge base over `knowledge.dirs`. Its folders are indexed in the background: a large
 * PDF holds up neither the adapters nor `/healthz`; a turn before then finds what is indexed so far.
 */
export function createKnowledge(parts: KnowledgeParts): Knowledge {
  const { config, logger } = parts;
  const service = new KnowledgeService({
    store: parts.stores.knowledge,
    settings: () => config().knowledge,
    embedder: () => parts.llm().embedder,
    logger,
  });
  const ready = service.start().catch((error: unknown) => {
    logger.error({ err: error }, "knowledge: indexing the folders failed");
  });
  const retrieval = {
    knowledge: service,
    settings: () => config().knowledge,
    prompts: () => parts.prompts.templates(),
  };
  return { service, ready, section: (turn) => knowledgeSection(retrieval, turn) };
}
