import type { ChatAdapter } from "../adapters/types.ts";
import type { ComponentSet } from "../components/component-set.ts";
import type { TsumugiConfig } from "../config/schema.ts";
import type { LlmClient } from "../llm/llm-client.ts";
import type { Logger } from "../log/logger.ts";
import type { Monitor } from "../monitor/monitor.ts";
import type { PromptTemplates } from "../prompts/templates.ts";
import { reminderCommands } from "../reminders/reminder-commands.ts";
import { ReminderService } from "../reminders/reminder-service.ts";
import { ScheduledMessages } from "../reminders/schedules.ts";
import type { Outbox } from "../reply/outbox.ts";
import type { MessageStore, Stores } from "../store/types.ts";

export interface ReminderParts {
  stores: Pick<Stores, "reminders">;
  messages: Pick<MessageStore, "recent">;
  hostCommands: ComponentSet["hostCommands"];
  adapters: ReadonlyMap<string, ChatAdapter>;
  /** The current client: `app.ts` replaces it on a config reload, so it is read per call. */
  llm: () => LlmClient;
  config: () => TsumugiConfig;
  outbox: Pick<Outbox, "send">;
  prompts: { templates(): PromptTemplates };
  monitor: Monitor;
  logger: Logger;
}

/** Reminders (commands, the planner's `schedule`, the console) and `schedules:`, polled once started. */
export function createReminders(parts: ReminderParts): {
  reminders: ReminderService;
  start(): void;
  stop(): void;
} {
  const { config, monitor, logger } = parts;
  const shared = {
    store: parts.stores.reminders,
    timeZone: () => config().chat.timezone,
    llm: parts.llm,
    persona: () => config().bot.persona ?? parts.prompts.templates().render("persona"),
    templates: () => parts.prompts.templates(),
    send: (origin: Parameters<Outbox["send"]>[0], segments: Parameters<Outbox["send"]>[1]) =>
      parts.outbox.send(origin, segments),
    monitor,
    logger,
  };
  const reminders = new ReminderService({ ...shared, settings: () => config().reminders });
  const schedules = new ScheduledMessages({
    ...shared,
    messages: parts.messages,
    schedules: () => config().schedules,
    adapters: parts.adapters,
  });
  for (const command of reminderCommands(reminders, shared.templates)) parts.hostCommands.add(command);
  return {
    reminders,
    start() {
      reminders.start();
      schedules.start();
    },
    stop() {
      reminders.stop();
      schedules.stop();
    },
  };
}
