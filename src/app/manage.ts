import type { ChatAdapter, JoinRequest, MemberJoined } from "../adapters/types.ts";
import { configForChat } from "../config/chat-settings.ts";
import type { TsumugiConfig } from "../config/schema.ts";
import type { LlmClient } from "../llm/llm-client.ts";
import type { Logger } from "../log/logger.ts";
import { GroupKeeper } from "../manage/group-keeper.ts";
import { GroupStanding } from "../manage/group-standing.ts";
import { manageTools } from "../manage/manage-tools.ts";
import type { Monitor } from "../monitor/monitor.ts";
import type { Participation } from "../participation/participation.ts";
import type { PromptTemplates } from "../prompts/templates.ts";
import type { Outbox } from "../reply/outbox.ts";

export interface ManageParts {
  adapters: ReadonlyMap<string, ChatAdapter>;
  config: () => TsumugiConfig;
  llm: () => LlmClient;
  prompts: { templates(): PromptTemplates };
  outbox: Pick<Outbox, "send">;
  participation: Pick<Participation, "clearToSend">;
  monitor: Monitor;
  logger: Logger;
}

/**
 * Keeping groups in order (docs/manage.md), wired: the keeper reads each group's settings
 * through `chat.groups."<id>"`, sends through the outbox, has welcomes cleared by the
 * participation governor, and hears of joins and join requests from the adapters.
 */
export function createGroupManagement(parts: ManageParts) {
  const { config, logger } = parts;
  const standing = new GroupStanding({ adapters: parts.adapters, admins: () => config().bot.admins, logger });
  const keeper = new GroupKeeper({
    standing,
    settings: (groupId) => {
      const inGroup = configForChat(config(), groupId);
      return {
        welcome: inGroup.chat.welcome,
        joinRequests: inGroup.chat.joinRequests,
        manage: inGroup.chat.manage,
        persona: inGroup.bot.persona ?? parts.prompts.templates().render("persona"),
        admins: inGroup.bot.admins,
      };
    },
    templates: () => parts.prompts.templates(),
    send: (origin, segments) => parts.outbox.send(origin, segments),
    llm: parts.llm,
    governor: (sessionId, text) =>
      parts.participation.clearToSend(
        { kind: "realtime", sessionId, messages: [], triggerIds: [] },
        `welcome-${Date.now()}`,
        text,
        AbortSignal.timeout(60_000),
      ),
    monitor: parts.monitor,
    logger: logger.child({ component: "manage" }),
  });
  const platformOf = (adapterId: string) => parts.adapters.get(adapterId)?.platform ?? "onebot";
  const handled = (what: string) => (error: unknown) =>
    logger.error({ err: error }, `handling ${what} failed`);
  return {
    keeper,
    tools: manageTools(keeper),
    /** Adapter events: a member joined, someone asked to join. */
    events: {
      memberJoined: (event: MemberJoined) => {
        keeper.memberJoined(event, platformOf(event.adapterId)).catch(handled("a member's joining"));
      },
      joinRequest: (request: JoinRequest) => {
        keeper.joinRequested(request, platformOf(request.adapterId)).catch(handled("a join request"));
      },
    },
  };
}
