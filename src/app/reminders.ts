import { randomUUID } from "node:crypto";
import type { ChatAdapter } from "../adapters/types.ts";
import type { ComponentSet } from "../components/component-set.ts";
import type { ReplyExtensionRegistry } from "../components/extension-registry.ts";
import type { PluginSpeechSource } from "../components/types.ts";
import { configForSession } from "../config/chat-settings.ts";
import type { TsumugiConfig } from "../config/schema.ts";
import type { LlmClient } from "../llm/llm-client.ts";
import type { Logger } from "../log/logger.ts";
import type { Monitor } from "../monitor/monitor.ts";
import type { PromptTemplates } from "../prompts/templates.ts";
import { reminderCommands } from "../reminders/reminder-commands.ts";
import { ReminderService } from "../reminders/reminder-service.ts";
import { ScheduledMessages } from "../reminders/schedules.ts";
import { ReplyExtensionRunner } from "../reply/extension-runner.ts";
import type { Outbox } from "../reply/outbox.ts";
import { type OwnMessage, OwnMessages } from "../reply/own-message.ts";
import type { ReplyResult } from "../reply/reply-stage.ts";
import type { MessageStore, Stores } from "../store/types.ts";

export interface ReminderParts {
  stores: Pick<Stores, "reminders">;
  messages: Pick<MessageStore, "recent">;
  hostCommands: ComponentSet["hostCommands"];
  adapters: ReadonlyMap<string, ChatAdapter>;
  /** The current client: `app.ts` replaces it on a config reload, so it is read per call. */
  llm: () => LlmClient;
  config: () => TsumugiConfig;
  outbox: Outbox;
  replyExtensions: ReplyExtensionRegistry;
  /** The host's text-to-speech for reply extensions (agent/voice-speaking.ts). */
  speech: PluginSpeechSource;
  /** Runs a task in the session's turn order (the message path's sessions, made after this). */
  inOrder: (sessionId: string, task: () => Promise<void>) => void;
  prompts: { templates(): PromptTemplates };
  monitor: Monitor;
  logger: Logger;
}

/** Longest a reminder's or schedule's message may take through extensions and sending. */
const SAY_TIMEOUT_MS = 60_000;

/** Reminders (commands, the planner's `schedule`, the console) and `schedules:`, polled once started. */
export function createReminders(parts: ReminderParts): {
  reminders: ReminderService;
  start(): void;
  stop(): void;
} {
  const { config, monitor, logger } = parts;
  const own = new OwnMessages({
    outbox: parts.outbox,
    extensions: new ReplyExtensionRunner({
      registry: parts.replyExtensions,
      speech: parts.speech,
      monitor,
      logger,
    }),
    settings: (sessionId) => {
      const { chat } = configForSession(config(), sessionId);
      return {
        textChunkLimit: chat.textChunkLimit,
        typingDelay: chat.typingDelay,
        mentionAll: chat.mentionAll,
      };
    },
    logger,
  });
  const shared = {
    store: parts.stores.reminders,
    timeZone: () => config().chat.timezone,
    llm: parts.llm,
    persona: (sessionId: string) =>
      configForSession(config(), sessionId).bot.persona ?? parts.prompts.templates().render("persona"),
    templates: () => parts.prompts.templates(),
    say: (message: Omit<OwnMessage, "replyId" | "signal">) =>
      new Promise<ReplyResult>((resolve, reject) => {
        parts.inOrder(message.origin.sessionId, () =>
          own
            .say({ ...message, replyId: randomUUID(), signal: AbortSignal.timeout(SAY_TIMEOUT_MS) })
            .then(resolve, reject),
        );
      }),
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
