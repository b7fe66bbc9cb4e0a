import type { HostCommands } from "../components/host-commands.ts";
import { configForSession } from "../config/chat-settings.ts";
import type { TsumugiConfig } from "../config/schema.ts";
import type { ZonedClock } from "../context/clock-text.ts";
import type { LlmClient } from "../llm/llm-client.ts";
import type { Logger } from "../log/logger.ts";
import type { MonitorHub } from "../monitor/monitor.ts";
import { GateModel } from "../participation/gate-model.ts";
import { Participation } from "../participation/participation.ts";
import { quietCommand } from "../participation/quiet-command.ts";
import type { PromptTemplates } from "../prompts/templates.ts";
import type { Outbox } from "../reply/outbox.ts";

export interface ParticipationParts {
  config: () => TsumugiConfig;
  clock: () => ZonedClock;
  llm: () => LlmClient;
  prompts: { templates(): PromptTemplates };
  hostCommands: HostCommands;
  outbox: Pick<Outbox, "send">;
  monitor: MonitorHub;
  logger: Logger;
}

/**
 * Participation and its governor, wired: it follows what the bot sends (the outbox's
 * `message.sent` events), its `/quiet` command joins the host commands, and the gate model asks
 * `llm.models.gate` before an unasked turn.
 */
export function createParticipation(parts: ParticipationParts): {
  participation: Participation;
  gate: GateModel;
} {
  const { config, monitor, logger } = parts;
  const participation = new Participation({
    inChat: (sessionId) => {
      const inChat = configForSession(config(), sessionId);
      return {
        participation: inChat.chat.participation,
        otherBots: inChat.chat.otherBots,
        names: [inChat.bot.name, ...inChat.bot.aliases],
        interests: inChat.bot.interests,
      };
    },
    clock: parts.clock,
    tellResting: (message) => {
      const text = parts.prompts.templates().render("participation_resting");
      parts.outbox.send(message, [{ type: "text", data: { text } }]).catch((error: unknown) => {
        logger.warn({ err: error, sessionId: message.sessionId }, "telling a member the bot rests failed");
      });
    },
    monitor,
    logger,
  });
  monitor.subscribe((event) => {
    if (event.type !== "message.sent" || event.sessionId === undefined) return;
    const { text, messageId } = event.data;
    participation.botSent(
      event.sessionId,
      typeof text === "string" ? text : "",
      typeof messageId === "string" ? messageId : undefined,
    );
  });
  parts.hostCommands.add(
    quietCommand({
      participation,
      settings: (sessionId) => configForSession(config(), sessionId).chat.participation,
    }),
  );
  const prompts = () => parts.prompts.templates();
  const gate = new GateModel({
    llm: parts.llm,
    inChat: (sessionId) => {
      const inChat = configForSession(config(), sessionId);
      const { name, aliases, persona } = inChat.bot;
      return {
        hasGateModel: (inChat.llm.models.gate ?? []).length > 0,
        identity: { name, aliases, persona: persona ?? prompts().render("persona") },
      };
    },
    prompts,
    logger,
  });
  return { participation, gate };
}
