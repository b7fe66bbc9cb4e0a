import type { AgentSettings } from "../agent/settings.ts";
import type { BatchBounds } from "../chat/batch-bounds.ts";
import type { TriggerSettings } from "../chat/triggers.ts";
import { configForChat } from "../config/chat-settings.ts";
import type { TsumugiConfig } from "../config/schema.ts";
import { type ZonedClock, zonedClock } from "../context/clock-text.ts";
import type { PromptTemplates } from "../prompts/templates.ts";

// The settings each service reads, derived from the config on every read (so a reload
// takes effect on the next turn).

export function agentSettings(
  config: TsumugiConfig,
  clock: ZonedClock,
  prompts: PromptTemplates,
): AgentSettings {
  return {
    clock,
    prompts,
    identity: {
      name: config.bot.name,
      aliases: config.bot.aliases,
      persona: config.bot.persona ?? prompts.render("persona"),
    },
    mode: config.chat.mode,
    maxRounds: config.agent.maxRounds,
    turnTimeoutMs: config.agent.turnTimeoutMs,
    maxWaitSeconds: config.agent.maxWaitSeconds,
    history: config.chat.history,
    avoidRepeating: config.chat.avoidRepeating,
    textChunkLimit: config.chat.textChunkLimit,
    digest: { task: taskOr(config, "digest"), maxTranscriptChars: config.chat.digest.maxTranscriptChars },
    summary: { task: taskOr(config, "summary"), maxTranscriptChars: config.chat.summary.maxTranscriptChars },
  };
}

/** A task with its own models (`llm.models.digest`), else the replyer's: both write what is sent. */
function taskOr(config: TsumugiConfig, task: string): string {
  return (config.llm.models[task] ?? []).length > 0 ? task : "replyer";
}

export function turnBounds(config: TsumugiConfig): BatchBounds {
  const realtime = config.chat.realtime;
  return {
    maxMessages: realtime.maxTurnMessages,
    maxChars: realtime.maxTurnChars,
    maxMessagesPerUser: realtime.maxTurnMessagesPerUser,
  };
}

/** What triggers the bot in the chat of `groupId` (its `chat.groups` entry applied). */
export function triggerSettings(config: TsumugiConfig, groupId: string | undefined): TriggerSettings {
  const inChat = configForChat(config, groupId);
  return { ...inChat.chat.triggers, names: [inChat.bot.name, ...inChat.bot.aliases] };
}

/** The clock of the zone `zone()` names now: rebuilt only when that value changes (`chat.timezone`). */
export function clockOfZone(zone: () => string): () => ZonedClock {
  let clock = { zone: zone(), value: zonedClock(zone()) };
  return () => {
    if (clock.zone !== zone()) clock = { zone: zone(), value: zonedClock(zone()) };
    return clock.value;
  };
}
