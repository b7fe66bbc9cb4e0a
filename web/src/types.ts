/**
 * What the console's API answers with. The shapes are the server's own types, imported
 * type-only (nothing of the server is bundled); only the front end's own shapes live here.
 */

export type {
  BudgetsAnswer,
  ClusterAnswer,
  ConnectInfo,
  ConsoleStatus,
  DailySpendAnswer,
  GroupExpressionsAnswer,
  GroupsAnswer,
  GroupView,
  MemoryDetail,
  MemoryForgetAnswer,
  MemoryListAnswer,
  MemorySourceView,
  ModelTestResult,
  PictureDescriptionAnswer,
  ProviderInfo,
  TurnDetail,
  UsageRow,
} from "../../src/api/types.ts";
export type { BudgetReport, BudgetUse } from "../../src/chat/budgets.ts";
export type { InstanceInfo } from "../../src/cluster/coordinator.ts";
export type { McpServerStatus, McpToolStatus } from "../../src/mcp/status.ts";
export type { MemoryEntry, MemoryOrigin } from "../../src/memory/types.ts";
export type { ChatMessage } from "../../src/message/inbound.ts";
export type { Segment } from "../../src/message/segment.ts";
export type { StoredMonitorEvent, TurnSummary } from "../../src/monitor/event-store.ts";
export type { MonitorEventType } from "../../src/monitor/monitor.ts";
export type { ComponentStatus, PluginStatus, ProcessStatus } from "../../src/plugins/status-types.ts";
export type { AdapterHealth } from "../../src/server/health-report.ts";
export type { GroupExpression } from "../../src/store/group-types.ts";
export type { SessionSummary, StoredMessage } from "../../src/store/types.ts";

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
