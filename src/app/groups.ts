import type { AccessSettings } from "../chat/config.ts";
import type { TsumugiConfig } from "../config/schema.ts";
import type { ZonedClock } from "../context/clock-text.ts";
import { ExpressionLearner } from "../expressions/expression-learner.ts";
import { expressionsSection } from "../expressions/expression-lines.ts";
import type { LlmClient } from "../llm/llm-client.ts";
import type { Logger } from "../log/logger.ts";
import type { ChatMessage } from "../message/inbound.ts";
import { parseSessionId } from "../message/session-id.ts";
import type { Monitor } from "../monitor/monitor.ts";
import type { PromptTemplates } from "../prompts/templates.ts";
import type { Stores } from "../store/types.ts";

export interface GroupParts {
  stores: Pick<Stores, "groups" | "history" | "memories">;
  /** The current client: `app.ts` replaces it on a config reload, so it is read per call. */
  llm: () => LlmClient;
  config: () => TsumugiConfig;
  prompts: { templates(): PromptTemplates };
  clock: () => ZonedClock;
  /** Whether a message was recalled: the learner never learns from it. */
  recalled: (message: ChatMessage) => boolean;
  monitor: Monitor;
  logger: Logger;
}

export interface GroupVoice {
  /** Learns groups' expressions in the background from the messages it is told of. */
  learner: ExpressionLearner;
  /** A group's way of talking as the prompts' expressions section; empty elsewhere or when off. */
  section(sessionId: string): Promise<string>;
}

/**
 * Sounding like a member of each group: the background learner of its expressions, on
 * `llm.models.expressions` or else the replyer's models, and the section the planner and the
 * replyer read them in.
 */
export function createGroupVoice(parts: GroupParts): GroupVoice {
  const { stores, config, prompts } = parts;
  const learner = new ExpressionLearner({
    store: stores.groups,
    history: stores.history,
    forgotten: stores.memories,
    llm: parts.llm,
    task: () => expressionTask(config()),
    settings: () => config().chat.expressions,
    access: (): AccessSettings => config().access,
    prompts: () => prompts.templates(),
    clock: parts.clock,
    recalled: parts.recalled,
    botName: () => config().bot.name,
    monitor: parts.monitor,
    logger: parts.logger,
  });
  return {
    learner,
    async section(sessionId) {
      const settings = config().chat.expressions;
      if (!settings.enabled || parseSessionId(sessionId)?.chatType !== "group") return "";
      const entries = await stores.groups.expressions(sessionId);
      return expressionsSection(entries.slice(0, settings.maxEntries), prompts.templates());
    },
  };
}

/** `expressions` when it has models, else the replyer's (like digests and summaries); undefined with neither. */
function expressionTask(config: TsumugiConfig): string | undefined {
  for (const task of ["expressions", "replyer"]) {
    if ((config.llm.models[task] ?? []).length > 0) return task;
  }
  return undefined;
}
