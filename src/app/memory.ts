import type { ComponentSet } from "../components/component-set.ts";
import type { TsumugiConfig } from "../config/schema.ts";
import type { ZonedClock } from "../context/clock-text.ts";
import type { LlmClient } from "../llm/llm-client.ts";
import type { Logger } from "../log/logger.ts";
import { memoryCommands } from "../memory/memory-commands.ts";
import { MemoryLearner } from "../memory/memory-learner.ts";
import { MemoryService } from "../memory/memory-service.ts";
import type { ChatMessage } from "../message/inbound.ts";
import type { Monitor } from "../monitor/monitor.ts";
import type { PromptTemplates } from "../prompts/templates.ts";
import type { Stores } from "../store/types.ts";

export interface MemoryParts {
  stores: Pick<Stores, "memories" | "history">;
  /** Where its chat commands (`/forget`, `/memory`) join the host's own. */
  hostCommands: ComponentSet["hostCommands"];
  /** The current client: `app.ts` replaces it on a config reload, so it is read per call. */
  llm: () => LlmClient;
  config: () => TsumugiConfig;
  prompts: { templates(): PromptTemplates };
  clock: () => ZonedClock;
  /** Whether a message was recalled: the learner never learns from it. */
  recalled: (message: ChatMessage) => boolean;
  /** `/forget group` also forgets the group's learned expressions; resolves with how many. */
  forgetGroupExpressions: (sessionId: string) => Promise<number>;
  monitor: Monitor;
  logger: Logger;
}

/**
 * Long-term memory: the service turns, plugins and its chat commands use, and the
 * learner that writes through it in the background from what chats say.
 */
export function createMemory(parts: MemoryParts): { memory: MemoryService; learner: MemoryLearner } {
  const { stores, llm, config, prompts, clock, monitor, logger } = parts;
  const memory = new MemoryService({
    store: stores.memories,
    settings: () => config().memory,
    prompts: () => prompts.templates(),
    clock,
    embedder: () => llm().embedder,
    monitor,
    logger,
  });
  const learner = new MemoryLearner({
    memory,
    store: stores.memories,
    history: stores.history,
    llm,
    hasModel: () => (config().llm.models.memory ?? []).length > 0,
    recalled: parts.recalled,
    settings: () => config().memory,
    access: () => config().access,
    prompts: () => prompts.templates(),
    clock,
    botName: () => config().bot.name,
    monitor,
    logger,
  });
  for (const command of memoryCommands({
    memory,
    settings: () => config().memory,
    clock,
    forgetGroupExpressions: parts.forgetGroupExpressions,
  })) {
    parts.hostCommands.add(command);
  }
  return { memory, learner };
}
