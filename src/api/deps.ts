import type { ConsoleAdapter } from "../adapters/console/console-adapter.ts";
import type { BudgetReport } from "../chat/budgets.ts";
import type { TsumugiConfig } from "../config/schema.ts";
import type { ListedGroup } from "../context/group-list.ts";
import type { KnowledgeService } from "../knowledge/knowledge-service.ts";
import type { Logger } from "../log/logger.ts";
import type { McpServers } from "../mcp/mcp-servers.ts";
import type { PictureFetcher } from "../media/types.ts";
import type { VoiceFetcher } from "../media/voice-fetch.ts";
import type { MemoryService } from "../memory/memory-service.ts";
import type { MemoryStore } from "../memory/types.ts";
import type { ChatMessage } from "../message/inbound.ts";
import type { LocalModelService } from "../models/local-model-service.ts";
import type { MonitorEventStore } from "../monitor/event-store.ts";
import type { LiveTimeline } from "../monitor/timeline.ts";
import type { Participation } from "../participation/participation.ts";
import type { PluginInstaller } from "../plugins/install/plugin-installer.ts";
import type { PluginHost } from "../plugins/plugin-host.ts";
import type { ReminderService } from "../reminders/reminder-service.ts";
import type { HealthReport } from "../server/health-report.ts";
import type { GroupStore } from "../store/group-types.ts";
import type {
  ChatHistory,
  KnownAccountStore,
  MessageStore,
  PictureDescriptionStore,
  UsageStore,
} from "../store/types.ts";
import type { ModelTester } from "./model-test.ts";
import type { ClusterView } from "./types.ts";

/** What the console's API reads and drives; built by the composition root. */
export interface ConsoleApiDeps {
  /** The config in force (it changes on reload). */
  config: () => TsumugiConfig;
  /** Applies a config the console just saved, without waiting for the file watcher. */
  applyConfig: (next: TsumugiConfig) => void;
  /** The file the console edits and the watcher reloads; undefined makes the config read-only. */
  configFile: string | undefined;
  /** Source of `${VAR}` expansion when checking an edited config. */
  env: NodeJS.ProcessEnv;
  /** Where the HTTP server listens (the real port when the config asked for 0). */
  address: () => { host: string; port: number };
  health: () => HealthReport;
  /** The accounts that have connected: the console lists one that is gone until it is dismissed. */
  knownAccounts: KnownAccountStore;
  /** Whether the account is connected, here or (in a cluster) to another instance. */
  accountConnected: (adapterId: string, selfId: string) => boolean;
  playground: ConsoleAdapter;
  timeline: LiveTimeline;
  monitorEvents: MonitorEventStore;
  messages: MessageStore;
  history: ChatHistory;
  /** Long-term memory, read for the memory page. */
  memories: MemoryStore;
  /** Long-term memory's changes from the memory page (announced, re-embedded like the others). */
  memory: MemoryService;
  /** The knowledge base: documents, scopes, uploads and test queries (the console's knowledge page). */
  knowledge: KnowledgeService;
  usage: UsageStore;
  /** The budgets in force and how much of each is used now (the same tallies the turns are checked against). */
  budgets: ConsoleBudgets;
  /** Groups' activity and learned expressions (the Groups page). */
  groups: GroupStore;
  /** The groups the connected accounts are in, from their platforms' group lists. */
  listGroups: () => Promise<ListedGroup[]>;
  testModel: ModelTester;
  plugins: PluginConsole;
  /** Installs, updates and uninstalls plugins from npm packages. */
  installer: Pick<PluginInstaller, "preview" | "install" | "update" | "uninstall" | "list">;
  /** MCP servers: states, tools, restart (the console's MCP page). */
  mcp: Pick<McpServers, "servers" | "restart">;
  /** Local (llama-cpp) models: runtime, downloads with progress, statuses. */
  localModels: Pick<LocalModelService, "snapshot" | "pull">;
  pictures: ConsolePictures;
  /** Reminders set in chats: listed and cancelled on the console's page. */
  reminders: Pick<ReminderService, "recent" | "cancel" | "timeText">;
  /** The cluster's instances; undefined when this bot works alone (no `cluster.redisUrl`). */
  cluster: () => Promise<ClusterView | undefined>;
  /** Participation per chat, and quiet switched from the console. */
  participation: Pick<Participation, "chats" | "quiet" | "sessionsOf">;
  logger: Logger;
}

/** Where spending stands against the budgets: `TurnLimits.report` and the groups it is asked about. */
export interface ConsoleBudgets {
  /** All chats' budgets without a session id; with a group's, that group's too. */
  report(groupSessionId?: string): Promise<BudgetReport>;
  /** The group chats with LLM calls this month, by session id. */
  groupsWithSpending(): Promise<string[]>;
}

/** Pictures and voice messages of stored messages, for the console to show without the browser contacting QQ. */
export interface ConsolePictures {
  /** The fetcher of the account that received the message: the same limits as describing. */
  fetcherFor(message: ChatMessage): PictureFetcher;
  /** The voice fetcher of that account: SILK decoded to WAV, AMR converted by `get_record`. */
  voiceFetcherFor(message: ChatMessage): VoiceFetcher;
  descriptions: Pick<PictureDescriptionStore, "findByFileId">;
}

/** What the console does with plugins: the plugin host's control surface. */
export type PluginConsole = Pick<
  PluginHost,
  "list" | "get" | "enable" | "disable" | "reload" | "setConfig" | "subscribe"
>;
