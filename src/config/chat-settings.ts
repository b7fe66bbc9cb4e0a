import { groupOfSession } from "../message/session-id.ts";
import type { TsumugiConfig } from "./schema.ts";

/**
 * The config as it applies in one chat: a group's entry in `chat.groups` replaces, in that group
 * alone, the participation, trigger, welcome and management keys it names, `chat.joinRequests`,
 * `bot.persona`, the voices of the speech providers it names (over `bot.voice`) and the model
 * lists of the tasks it names. Every per-chat reading of those keys goes through here, on every read, so an
 * edited config applies at once.
 */
export function configForChat(config: TsumugiConfig, groupId: string | undefined): TsumugiConfig {
  const override = groupId === undefined ? undefined : config.chat.groups[groupId];
  if (override === undefined) return config;
  return {
    ...config,
    bot: {
      ...config.bot,
      ...(override.persona === undefined ? {} : { persona: override.persona }),
      voice: { ...config.bot.voice, ...override.voice },
    },
    chat: {
      ...config.chat,
      participation: { ...config.chat.participation, ...override.participation },
      triggers: { ...config.chat.triggers, ...override.triggers },
      welcome: { ...config.chat.welcome, ...override.welcome },
      joinRequests: override.joinRequests ?? config.chat.joinRequests,
      manage: { ...config.chat.manage, ...override.manage },
    },
    llm:
      override.models === undefined
        ? config.llm
        : { ...config.llm, models: { ...config.llm.models, ...override.models } },
  };
}

/** The config as it applies in the chat `sessionId` names. */
export function configForSession(config: TsumugiConfig, sessionId: string): TsumugiConfig {
  return configForChat(config, groupOfSession(sessionId));
}
