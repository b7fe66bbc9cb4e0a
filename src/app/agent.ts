import type { ChatAdapter } from "../adapters/types.ts";
import { type BuiltinToolDeps, createBuiltinTools } from "../agent/builtin-tool-runs.ts";
import { TurnRunner, type TurnRunnerDeps } from "../agent/turn-runner.ts";
import type { VoiceSpeaking } from "../agent/voice-speaking.ts";
import type { Cluster } from "../cluster/cluster.ts";
import type { ComponentSet } from "../components/component-set.ts";
import type { CallContexts } from "../components/types.ts";
import { configForSession } from "../config/chat-settings.ts";
import type { TsumugiConfig } from "../config/schema.ts";
import type { ZonedClock } from "../context/clock-text.ts";
import { MemberNames } from "../context/member-names.ts";
import { oneBotMemberLookup, oneBotQuoteFetcher } from "../context/onebot-fetcher.ts";
import { QuoteContext } from "../context/quote-context.ts";
import type { LlmClient } from "../llm/llm-client.ts";
import type { Logger } from "../log/logger.ts";
import type { MemoryService } from "../memory/memory-service.ts";
import type { MonitorHub } from "../monitor/monitor.ts";
import { createPluginAjv } from "../plugins/plugin-ajv.ts";
import type { PromptTemplates } from "../prompts/templates.ts";
import type { ReminderService } from "../reminders/reminder-service.ts";
import { ReplyExtensionRunner } from "../reply/extension-runner.ts";
import type { Outbox } from "../reply/outbox.ts";
import { ReplyStage } from "../reply/reply-stage.ts";
import type { MessageStore, Stores } from "../store/types.ts";
import { clusterTurns } from "./cluster-member.ts";
import type { Knowledge } from "./knowledge.ts";
import { type TurnPicturesDeps, turnPicturesOf } from "./pictures.ts";
import { agentSettings } from "./service-settings.ts";
import { turnPluginsOf } from "./turn-plugin-wiring.ts";

export interface AgentParts {
  /** The current client: `app.ts` replaces it on a config reload, so it is read per call. */
  llm: () => LlmClient;
  stores: Pick<Stores, "turns" | "pictures" | "voiceTranscripts" | "stickers">;
  messages: MessageStore;
  /** The bot's adapters: a quote is resolved through the quoting message's account. */
  adapters: ReadonlyMap<string, ChatAdapter>;
  cluster: Cluster | undefined;
  config: () => TsumugiConfig;
  clock: () => ZonedClock;
  prompts: { templates(): PromptTemplates };
  components: ComponentSet;
  contexts: CallContexts;
  pictureFetcherFor: TurnPicturesDeps["fetcherFor"];
  voiceFetcherFor: TurnPicturesDeps["voiceFetcherFor"];
  memory: MemoryService;
  /** The group's way of talking as a prompt section (src/app/groups.ts). */
  expressions: TurnRunnerDeps["expressions"];
  knowledge: Knowledge;
  reminders: ReminderService;
  /** The management tools (src/manage/manage-tools.ts). */
  groupTools: BuiltinToolDeps["groupTools"];
  outbox: Outbox;
  budgets: TurnRunnerDeps["budgets"];
  /** Speaking with the tts task, shared with plugins (its caps count both). */
  speaking: VoiceSpeaking;
  recalled: TurnRunnerDeps["recalled"];
  clearUnasked: TurnRunnerDeps["clearUnasked"];
  monitor: MonitorHub;
  logger: Logger;
}

/**
 * The agent stage: the turn runner with what each turn reads (quotes, plugins' tools and hooks,
 * pictures, memory) and the reply stage it sends through, plugins' reply extensions included.
 */
export function createTurnRunner(parts: AgentParts): TurnRunner {
  const { llm, config, prompts, components, monitor, logger } = parts;
  const quotes = new QuoteContext({
    fetcherFor: (message) => {
      const adapter = parts.adapters.get(message.adapterId);
      return adapter && oneBotQuoteFetcher(adapter, message.selfId);
    },
    settings: () => ({ quote: config().chat.quote, timeZone: config().chat.timezone }),
    isRecalled: async (sessionId, messageId) =>
      (await parts.messages.findByMessageId(sessionId, messageId))?.recalledAt !== undefined,
    monitor,
    logger,
  });
  const names = new MemberNames({
    lookupFor: (message) => {
      const adapter = parts.adapters.get(message.adapterId);
      return adapter && oneBotMemberLookup(adapter, message.selfId);
    },
    logger,
  });
  const replyStage = new ReplyStage({
    outbox: parts.outbox,
    extensions: new ReplyExtensionRunner({
      registry: components.replyExtensions,
      speech: (call) => parts.speaking.forPlugin(call),
      monitor,
      logger,
    }),
    typingDelay: () => config().chat.typingDelay,
    mentionAll: (sessionId) => configForSession(config(), sessionId).chat.mentionAll,
    monitor,
    logger,
  });
  const { picturesForTurn, stickers } = turnPicturesOf({
    llm,
    stores: parts.stores,
    config,
    prompts,
    fetcherFor: parts.pictureFetcherFor,
    voiceFetcherFor: parts.voiceFetcherFor,
    monitor,
    logger,
  });
  // The planner's own tools join the registry before any plugin: no plugin tool takes their names.
  const builtins = createBuiltinTools({
    ajv: createPluginAjv(),
    mode: () => config().chat.mode,
    replyStage,
    stickers,
    memory: parts.memory,
    knowledge: { service: parts.knowledge.service, settings: () => config().knowledge },
    search: {
      settings: () => config().search,
      allowPrivateNetworks: () => config().media.allowPrivateNetworks,
      logger,
    },
    reminders: parts.reminders,
    media: {
      voice: parts.speaking,
      images: {
        imageMaker: () => llm().imageMaker,
        settings: () => config().media.images,
        allowPrivateNetworks: () => config().media.allowPrivateNetworks,
        budgets: parts.budgets,
        monitor,
      },
    },
    groupTools: parts.groupTools,
  });
  for (const tool of builtins) components.tools.add(tool);
  return new TurnRunner({
    llm: { generate: (request) => llm().generate(request) },
    messages: parts.messages,
    turns: parts.stores.turns,
    ...(parts.cluster ? clusterTurns(parts.cluster, monitor) : {}),
    quotes,
    names,
    settings: (batch) =>
      agentSettings(configForSession(config(), batch.sessionId), parts.clock(), prompts.templates()),
    plugins: turnPluginsOf(components, builtins, parts.contexts, monitor, logger, () => config().agent),
    picturesForTurn,
    memory: parts.memory,
    expressions: parts.expressions,
    knowledge: parts.knowledge.section,
    replyStage,
    budgets: parts.budgets,
    recalled: parts.recalled,
    clearUnasked: parts.clearUnasked,
    monitor,
    logger,
  });
}
