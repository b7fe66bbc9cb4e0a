import type { AccountStatus, ChatAdapter } from "./adapters/types.ts";
import { VoiceSpeaking } from "./agent/voice-speaking.ts";
import { consoleSecretsSchema } from "./api/config-secrets.ts";
import { registerConsoleApi } from "./api/index.ts";
import { rememberConnected } from "./api/known-accounts.ts";
import { createModelTester } from "./api/model-test.ts";
import { addAdapters } from "./app/adapters.ts";
import { createTurnRunner } from "./app/agent.ts";
import { adoptConfigEdit, shareConfigEdits } from "./app/cluster-config.ts";
import { joinCluster, limitCounters, startAdapters } from "./app/cluster-member.ts";
import { createGroupVoice } from "./app/groups.ts";
import { healthReport } from "./app/health.ts";
import { createKnowledge } from "./app/knowledge.ts";
import { createGroupManagement } from "./app/manage.ts";
import { createMemory } from "./app/memory.ts";
import { createMessagePath } from "./app/message-path.ts";
import { createParticipation } from "./app/participation.ts";
import { accountPictureFetchers, accountVoiceFetchers, consolePicturesOf } from "./app/pictures.ts";
import { createPluginHosts } from "./app/plugin-hosts.ts";
import { PluginsReady } from "./app/plugins-ready.ts";
import { recoverClusterWork, recoverInterruptedTurns } from "./app/recover-turns.ts";
import { createReminders } from "./app/reminders.ts";
import { clockOfZone, triggerSettings } from "./app/service-settings.ts";
import { shutDown } from "./app/shutdown.ts";
import { systemClock } from "./chat/clock.ts";
import { KeyedQueue } from "./chat/keyed-queue.ts";
import { RecalledMessages, recallMessage } from "./chat/recalls.ts";
import { groupsSpendingThisMonth } from "./chat/spending.ts";
import { summaryCommand } from "./chat/summary-command.ts";
import { detectTrigger } from "./chat/triggers.ts";
import { TurnLimits } from "./chat/turn-limits.ts";
import { createComponentSet } from "./components/component-set.ts";
import type { SpeechCall } from "./components/types.ts";
import { configForSession } from "./config/chat-settings.ts";
import { promptsBaseDir } from "./config/load.ts";
import { diffConfig, watchConfigFile } from "./config/reload.ts";
import type { TsumugiConfig } from "./config/schema.ts";
import { listGroups } from "./context/group-list.ts";
import { LlmClient } from "./llm/llm-client.ts";
import { withCost } from "./llm/prices.ts";
import type { Logger } from "./log/logger.ts";
import type { ChatMessage } from "./message/inbound.ts";
import { dataDirectory } from "./models/data-directory.ts";
import { createLocalModelStack } from "./models/local-model-stack.ts";
import { MonitorHub } from "./monitor/monitor.ts";
import { Timeline } from "./monitor/timeline.ts";
import { adminPrivateChats } from "./plugins/admins.ts";
import { PluginInstaller } from "./plugins/install/plugin-installer.ts";
import { StdioChannelAdapter } from "./plugins/stdio/channel-adapter.ts";
import { PromptLibrary } from "./prompts/prompt-library.ts";
import { Outbox } from "./reply/outbox.ts";
import { SendJournal } from "./reply/send-journal.ts";
import { HttpServer } from "./server/http-server.ts";
import { sandboxedPeers } from "./server/sandboxed-peers.ts";
import { openStore } from "./store/open-store.ts";
import { BOT_RECENT_CACHE, RecentMessageCache } from "./store/recent-cache.ts";
import type { UsageRecord } from "./store/types.ts";
import { projectPath } from "./util/project-files.ts";

export interface AppOptions {
  config: TsumugiConfig;
  /**
   * The config file in use, which may not exist yet (first run): watched for edits and written
   * by the console when given.
   */
  configFile?: string;
  logger: Logger;
  /**
   * Where every monitor event is emitted; by default a hub of its own. Given by an embedder
   * (the test harness) that follows events from the first one on, start-up included.
   */
  monitor?: MonitorHub;
}

export interface RunningApp {
  /** Where the HTTP server listens (port resolved when the config asked for 0). */
  address: { host: string; port: number };
  /**
   * Settles once every plugin found at start-up has had its first activation attempt. The
   * bot does not wait for it; turns that start meanwhile do, at most PLUGINS_READY_WAIT_MS.
   */
  pluginsActivated: Promise<void>;
  stop(): Promise<void>;
}

/** The built console front end (`npm run build:web`). */
const WEB_DIST = projectPath("web/dist");

/**
 * The composition root: builds every service from the config, wires them along the path of
 * a message (adapter → chat → agent → reply → adapter) and starts them.
 */
export async function startApp(options: AppOptions): Promise<RunningApp> {
  const { logger } = options;
  let config = options.config;
  const stores = await openStore(config.storage.url, logger, {
    monitorRetention: () => config.monitor,
    messageRetention: () => config.storage.retention,
    spoolLimit: config.storage.spoolSize,
    ...(config.server.port > 0 && { port: config.server.port }),
    // Only ordering drops when the spool is full: a reply to the bot without a mention counts as untriggered.
    isTrigger: (message) =>
      detectTrigger(message, triggerSettings(config, message.groupId), false) !== undefined,
  });
  const messages = new RecentMessageCache(stores.messages, BOT_RECENT_CACHE);
  /** This instance's OneBot connections (for /healthz and the cluster); `adapters` is what the bot uses. */
  const platformAdapters = new Map<string, ChatAdapter>();
  const adapters = new Map<string, ChatAdapter>();
  let listening = { host: config.server.host, port: config.server.port };
  // Several instances over Redis (cluster.redisUrl): sessions are owned one instance at a time.
  const cluster = await joinCluster(config, {
    address: () => `${listening.host}:${listening.port}`,
    platformAdapters,
    // A message routed to this instance enters the path after the route stage.
    ingest: (message) => path.fromLocal(message),
    recall: (recall) => recallHere(recall),
    forgetCached: (sessionId) => messages.forget(sessionId),
    busy: (sessionId) => queue.has(sessionId),
    turns: stores.turns,
    recover: (work) => recoverClusterWork(recoveryParts(), work),
    storage: () => stores.status(),
    adopt: {
      edit: (text) =>
        adoptConfigEdit(text, {
          file: options.configFile,
          env: process.env,
          secretsSchema,
          apply: (next) => configEdits.file(next),
          logger,
        }),
      plugin: (ref, enabled) => (enabled ? plugins.host.enable(ref) : plugins.host.disable(ref)),
    },
    logger,
  });
  // One clock per time zone value, rebuilt only when chat.timezone changes.
  const chatClock = clockOfZone(() => config.chat.timezone);
  // Today's and this month's spending in all, per chat and per user (limits.*Tokens, limits.*Cost),
  // counted as calls are recorded; in a cluster, counted in Redis with the turns per minute, so
  // the limits hold for all instances.
  const counters = limitCounters(cluster, { store: stores.usage, clock: chatClock, logger }, () => config);
  // Every model call, priced at the prices in force when it was made (llm.prices).
  const recordUsage = (call: UsageRecord) => {
    const record = withCost(call, config.llm.prices);
    stores.usage.record(record);
    counters.spending.day.add(record);
    counters.spending.month.add(record);
  };

  // Local (llama-cpp) models load on first use and outlive the clients rebuilt on reload.
  const local = createLocalModelStack(
    dataDirectory(config.storage.url),
    logger,
    undefined,
    () => config.llm.modelMirror,
  );
  const createLlm = (current: TsumugiConfig) =>
    new LlmClient({
      ...current.llm, // providers, models, acceptsImages
      modelsInChat: (sessionId) => configForSession(current, sessionId).llm.models,
      localModels: local.models,
      usage: recordUsage,
      logger,
    });
  let llm = createLlm(config);

  const onListenerError = (error: unknown) => logger.warn({ err: error }, "monitor listener failed");
  const monitor = options.monitor ?? new MonitorHub(onListenerError);
  const timeline = new Timeline(monitor, stores.monitorEvents, onListenerError);
  const outbox: Outbox = new Outbox(
    (id) => adapters.get(id),
    // In a cluster, each send carries its turn's lease token (fencing; TurnRunner keeps them).
    new SendJournal(
      stores.sends,
      logger,
      cluster && {
        fenceOf: (replyId) => turnRunner.fenceOf(replyId),
        fencedOut: (replyId, refusal) => turnRunner.fencedOut(replyId, refusal),
      },
    ),
    messages,
    () => config.bot.name,
    monitor,
    logger,
  );
  const prompts = new PromptLibrary(
    config.prompts,
    promptsBaseDir(options.configFile, process.cwd()),
    logger,
  );
  const components = createComponentSet();
  // Recalls this instance knows of: known at once, before the store marks them.
  const recalled = new RecalledMessages();
  // What the services that read the chats and call models beside the turns share.
  const background = {
    recalled: (message: ChatMessage) => recalled.has(message),
    stores,
    llm: () => llm,
    config: () => config,
    prompts,
    clock: chatClock,
    monitor,
    logger,
  };
  const { memory, learner: memoryLearner } = createMemory({
    ...background,
    hostCommands: components.hostCommands,
    forgetGroupExpressions: (sessionId) => stores.groups.forget(sessionId, Date.now()),
  });
  // Speaking with llm.models.tts under media.tts: send_voice and plugins share the caps.
  const speaking = new VoiceSpeaking({
    speaker: () => llm.speaker,
    voices: (sessionId) => configForSession(config, sessionId).bot.voice,
    settings: () => config.media.tts,
    // Speech comes only in turns and plugin calls, once `limits` exists.
    budgets: { crossed: (batch, replyId) => limits.crossed(batch, replyId) },
    monitor,
  });
  const speech = (call: SpeechCall) => speaking.forPlugin(call);
  const groupVoice = createGroupVoice(background);
  const knowledge = createKnowledge(background);
  const reminders = createReminders({
    ...background,
    messages,
    hostCommands: components.hostCommands,
    adapters,
    outbox,
    replyExtensions: components.replyExtensions,
    speech,
    // `path` is made below; reminders are sent only once the app has started.
    inOrder: (sessionId, task) => path.sessions.inOrder(sessionId, task),
  });
  // Stdio channel plugins' chats enter the message path as the console's do (`path` exists before plugins start).
  const stdioChannels = new StdioChannelAdapter((message) => path.fromLocal(message));
  // One fetcher per account for plugins, turns and the console: what one decoded is not decoded again.
  const pictureFetcherFor = accountPictureFetchers({ config: () => config, adapters, logger });
  const voiceFetcherFor = accountVoiceFetchers({ config: () => config, adapters, logger });
  const { plugins, mcp } = createPluginHosts({
    config: () => config,
    configFile: options.configFile,
    components,
    channels: stdioChannels,
    outbox,
    adapters,
    messages,
    pictureFetcherFor,
    // Commands arrive once the bot is running: `limits` exists by then.
    admitCommand: (message) => limits.admitCommand(message),
    memory,
    speech,
    cluster,
    prompts,
    monitor,
    logger,
  });
  const limits = new TurnLimits({
    settings: () => config.limits,
    economyModels: () => config.llm.models.economy,
    adminChats: (origin) => adminPrivateChats(origin, config.bot.admins),
    spending: counters.spending,
    turns: counters.turns,
    clock: systemClock,
    sendNotice: async (origin, text, replyId) => {
      await outbox.send(origin, [{ type: "text", data: { text } }], replyId);
    },
    monitor,
    logger,
  });
  const recallHere = ({ sessionId, messageId }: { sessionId: string; messageId: string }) =>
    recallMessage({ messages, recalled, turns: turnRunner, memory, logger }, sessionId, messageId);
  // Joining conversations unasked, and the governor's rules for it (docs/participation.md).
  const { participation, gate } = createParticipation({
    ...background,
    hostCommands: components.hostCommands,
    outbox,
  });
  // Keeping groups in order: management tools, kick confirmations, join requests, welcomes (docs/manage.md).
  const groupManagement = createGroupManagement({ ...background, adapters, outbox, participation });
  const turnRunner = createTurnRunner({
    llm: () => llm,
    stores,
    messages,
    adapters,
    cluster,
    config: () => config,
    clock: chatClock,
    prompts,
    components,
    contexts: plugins.contexts,
    pictureFetcherFor,
    voiceFetcherFor,
    memory,
    expressions: (sessionId) => groupVoice.section(sessionId),
    knowledge,
    reminders: reminders.reminders,
    groupTools: groupManagement.tools,
    outbox,
    budgets: limits,
    speaking,
    recalled,
    clearUnasked: (batch, replyId, text, signal) => participation.clearToSend(batch, replyId, text, signal),
    monitor,
    logger,
  });
  const queue = new KeyedQueue((sessionId, error) =>
    logger.error({ sessionId, err: error }, "session task failed unexpectedly"),
  );
  // Every stage a message and a turn pass, in order: src/app/message-path.ts.
  const pluginsReady = new PluginsReady({
    activating: () =>
      plugins.host
        .list()
        .filter((plugin) => plugin.process?.state === "starting")
        .map((plugin) => plugin.id),
    monitor,
    logger,
  });
  const path = createMessagePath({
    messages,
    commands: plugins.commands,
    learners: [memoryLearner, groupVoice.learner],
    queue,
    limits,
    pluginsReady,
    turnRunner,
    cluster,
    platformAdapters,
    adapters,
    config: () => config,
    outbox,
    participation,
    groupDecisions: groupManagement.keeper,
    gate,
    monitor,
    logger,
  });
  const recoveryParts = () => ({
    config,
    stores,
    messages,
    sessions: path.sessions,
    outbox,
    monitor,
    logger,
  });
  components.hostCommands.add(
    summaryCommand({
      settings: () => config.chat.summary,
      store: messages,
      submit: (batch) => path.sessions.submitAlone(batch),
    }),
  );

  const server = new HttpServer(
    {
      host: config.server.host,
      port: config.server.port,
      token: config.server.token,
      allowedHosts: config.server.allowedHosts,
      staticDir: WEB_DIST,
      sandboxedPeer: sandboxedPeers(() => config.plugins.sandboxUid),
      logger,
    },
    () => healthReport(platformAdapters, stores),
  );
  const playground = addAdapters(adapters, platformAdapters, {
    config,
    routes: server,
    deliver: path.fromPlatform,
    deliverLocal: path.fromLocal,
    ...(cluster && { wrap: (adapter: ChatAdapter) => cluster.adapter(adapter) }),
    connection: (adapterId: string, status: AccountStatus) => {
      rememberConnected(stores.knownAccounts, adapterId, status, logger);
      cluster?.accountChanged(adapterId, status);
    },
    // In a cluster, the session's owner marks it: its turns and batches are the ones reading it.
    deleted: (recall) => (cluster ? cluster.recalled(recall) : recallHere(recall)),
    typing: ({ sessionId, userId, typing }) => participation.typing(sessionId, userId, typing),
    ...groupManagement.events,
    botName: () => config.bot.name,
    stdioChannels,
    monitor,
    logger,
  });
  /** A reloaded config file (from the watcher, or at once after the console saved it). */
  const applyConfig = (next: TsumugiConfig) => {
    const diff = diffConfig(config, next);
    if (diff.changedKeys.length === 0) return;
    config = next;
    llm = createLlm(next);
    void local.models.retain(next.llm.providers);
    void plugins.host.applySettings();
    prompts.apply(next.prompts);
    if (diff.restartRequired.length > 0) {
      logger.warn({ keys: diff.restartRequired }, "these config changes apply after a restart");
    }
    logger.info({ keys: diff.changedKeys }, "config changes applied");
  };
  /** Where the console finds secrets: the config schema and the plugins' config schemas. */
  const secretsSchema = () => consoleSecretsSchema(plugins.host.list());
  // In a cluster, what the console saves reaches the other instances too, as an edit.
  const configEdits = cluster
    ? shareConfigEdits(applyConfig, options.configFile, cluster, secretsSchema)
    : { console: applyConfig, file: applyConfig };
  registerConsoleApi(server.app, {
    config: () => config,
    applyConfig: configEdits.console,
    configFile: options.configFile,
    env: process.env,
    address: () => listening,
    health: () => healthReport(platformAdapters, stores),
    knownAccounts: stores.knownAccounts,
    // The wrapped adapters: in a cluster they also list the accounts connected to other instances.
    accountConnected: (adapterId, selfId) =>
      adapters
        .get(adapterId)
        ?.accounts()
        .some((account) => account.selfId === selfId && account.connected) ?? false,
    playground,
    // In a cluster, the live timeline has the other instances' events too.
    timeline: cluster ? cluster.shareTimeline(timeline) : timeline,
    monitorEvents: stores.monitorEvents,
    messages,
    history: stores.history,
    memories: stores.memories,
    memory,
    knowledge: knowledge.service,
    reminders: reminders.reminders,
    usage: stores.usage,
    budgets: {
      report: (groupSessionId) => limits.report(groupSessionId),
      groupsWithSpending: () => groupsSpendingThisMonth(stores.usage, chatClock(), Date.now()),
    },
    groups: stores.groups,
    listGroups: () => listGroups(platformAdapters.values(), logger),
    testModel: createModelTester(recordUsage, local.models, logger),
    plugins: plugins.host,
    installer: new PluginInstaller({
      settings: () => config.plugins,
      cwd: process.cwd(),
      loaded: () => plugins.host.list(),
      folderChanged: (folder) => plugins.host.loadFolder(folder),
      logger,
    }),
    mcp,
    localModels: local.service,
    pictures: consolePicturesOf({ fetcherFor: pictureFetcherFor, voiceFetcherFor, store: stores.pictures }),
    cluster: async () => cluster && { self: cluster.id, instances: await cluster.instances() },
    participation,
    logger,
  });

  const address = await server.listen();
  listening = { host: config.server.host, port: address.port };
  // Plugins start in the background: one slow to activate holds up neither the adapters nor
  // /healthz, only the turns that start meanwhile (bounded). The built-in commands are
  // registered before `start()` returns its promise.
  const pluginsActivated = plugins.start().then(
    () => plugins.activated(),
    (error: unknown) => logger.error({ err: error }, "plugins failed to start"),
  );
  pluginsReady.follow(pluginsActivated);
  // Turns a crash interrupted are queued before the adapters deliver anything new, so each
  // stays first in its session; they wait for their account to connect before they start.
  // In a cluster, only this instance's own turns: those of instances that died are taken over
  // by whichever instance notices first (src/cluster/takeover.ts).
  if (!(await cluster?.takenOver())) {
    await recoverInterruptedTurns(recoveryParts(), cluster && ((turn) => turn.instanceId === cluster.id));
  }
  await cluster?.start();
  await startAdapters(adapters.values(), config, cluster);
  reminders.start();
  logger.info(
    { url: `http://${config.server.host}:${address.port}/` },
    `Tsumugi is running: console http://${config.server.host}:${address.port}/`,
  );
  if ((config.llm.models.planner ?? []).length === 0) {
    logger.warn("no planner model configured (llm.models.planner): messages are stored but not answered");
  }

  const stopWatching = options.configFile
    ? watchConfigFile(options.configFile, configEdits.file, () => {}, logger)
    : () => {};

  let stopping: Promise<void> | undefined;
  const stop = () => {
    reminders.stop();
    groupManagement.keeper.stop();
    stopping ??= shutDown({
      stopWatching,
      prompts,
      batcher: path.batcher,
      digests: path.digests,
      queue,
      turnRunner,
      plugins,
      learners: [memoryLearner, groupVoice.learner],
      knowledge: knowledge.service,
      localModels: local.models,
      adapters,
      cluster,
      server,
      timeline,
      stores,
      logger,
    });
    return stopping;
  };
  return { address: { host: config.server.host, port: address.port }, pluginsActivated, stop };
}
