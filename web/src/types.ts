/** The shapes the console's API answers with (see src/server/api/). */

export interface Segment {
  type: string;
  data: Record<string, unknown>;
}

export interface ChatMessage {
  rowId?: number;
  platform: string;
  adapterId: string;
  selfId: string;
  sessionId: string;
  chatType: "group" | "private";
  groupId?: string;
  userId: string;
  senderName: string;
  messageId: string;
  segments: Segment[];
  time: number;
  fromSelf: boolean;
}

export interface AdapterHealth {
  id: string;
  selfId: string | null;
  connected: boolean;
  online?: boolean;
}

export interface Status {
  bot: { name: string };
  modelConfigured: boolean;
  configFile: string | null;
  adapters: AdapterHealth[];
  storage: StorageHealth;
}

export interface StorageHealth {
  state: "ok" | "degraded";
  reason?: string;
  spooled: number;
  dropped: number;
}

export interface MonitorEvent {
  id?: number;
  type: string;
  time: number;
  replyId?: string;
  sessionId?: string;
  data: Record<string, unknown>;
}

export interface TurnSummary {
  id: number;
  replyId: string;
  sessionId: string;
  startedAt: number;
  finishedAt?: number;
  status?: string;
  reason?: string;
  rounds: number;
}

export interface TurnDetail {
  replyId: string;
  events: MonitorEvent[];
  messages: ChatMessage[];
}

export interface SessionSummary {
  sessionId: string;
  platform: string;
  chatType: string;
  messageCount: number;
  last: ChatMessage;
}

export interface ProviderInfo {
  id: string;
  type: string;
  baseUrl: string | null;
  hasApiKey: boolean;
}

export interface ModelTestResult {
  ok: boolean;
  latencyMs: number;
  text?: string;
  error?: string;
}

export interface UsageRow {
  day: string;
  task: string;
  provider: string;
  model: string;
  calls: number;
  failures: number;
  promptTokens: number;
  completionTokens: number;
  averageLatencyMs: number;
  cost: number | null;
}

export interface ConnectInfo {
  adapters: Array<{
    id: string;
    mode: "reverse-ws" | "forward-ws" | "http";
    url: string;
    apiUrl: string | null;
    accessToken: string;
    accounts: AdapterHealth[];
  }>;
}

/** A JSON Schema, as far as the generated forms read it. */
export interface JsonSchema {
  type?: string | string[];
  description?: string;
  title?: string;
  default?: unknown;
  enum?: unknown[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  pattern?: string;
}

export interface PluginComponentStatus {
  kind: string;
  name: string;
  fullName: string;
  description: string;
  enabled: boolean;
  error?: string;
}

/** The plugin host's status of one plugin (runtimes may add fields; they pass through). */
export interface PluginStatus {
  id: string;
  dir: string;
  name: string;
  version: string;
  description: string;
  runtime: string;
  state: "enabled" | "disabled" | "failed";
  error?: string;
  errorAt?: number;
  loadedAt?: number;
  components: PluginComponentStatus[];
  config?: Record<string, unknown>;
  configSchema?: JsonSchema;
  /** Stdio plugins: their process (src/plugins/runtime.ts ProcessStatus). */
  process?: PluginProcessStatus;
  /** Stdio plugins: the widgets of their latest `web_ui` push (seed 002), shapes chosen by the plugin. */
  widgets?: unknown[];
}

export interface PluginProcessStatus {
  state: "starting" | "running" | "errored" | "restarting" | "failed" | "stopped";
  pid?: number;
  command: string[];
  restarts: number;
  failures: number;
  nextRetryAt?: number;
  lastError?: string;
  lastErrorAt?: number;
  startedAt?: number;
}
