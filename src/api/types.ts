/**
 * The answers of the console's API that no lower module owns. Type-only, with no runtime
 * imports (and nothing of Node's): the front end in web/ imports these and the types they
 * are built from, so the server and the console share one definition.
 */

import type { BudgetReport } from "../chat/budgets.ts";
import type { InstanceInfo } from "../cluster/coordinator.ts";
import type { MemoryEntry, MemorySource } from "../memory/types.ts";
import type { ChatMessage } from "../message/inbound.ts";
import type { StoredMonitorEvent } from "../monitor/event-store.ts";
import type { AdapterHealth } from "../server/health-report.ts";
import type { GroupExpression } from "../store/group-types.ts";
import type { DailySpendRow, StorageStatus, UsageSummaryRow } from "../store/types.ts";

/** `GET /api/status`: what the console shows first. */
export interface ConsoleStatus {
  bot: { name: string };
  modelConfigured: boolean;
  configFile: string | null;
  adapters: ConsoleAccount[];
  storage: StorageStatus;
}

/** An account as the console lists it: with its latest connection when it has connected before. */
export interface ConsoleAccount extends AdapterHealth {
  /** Unix ms of its latest connection (remembered across restarts); absent while never seen. */
  lastConnectedAt?: number;
}

/** The instances of a cluster, as one of them sees them. */
export interface ClusterView {
  /** This instance's id. */
  self: string;
  /** Every live instance, this one included. */
  instances: InstanceInfo[];
}

/** `GET /api/cluster`: not in a cluster, or its instances. */
export type ClusterAnswer = { enabled: false } | ({ enabled: true } & ClusterView);

/** `GET /api/monitor/turns/:replyId`: every event of one turn and the messages that triggered it. */
export interface TurnDetail {
  replyId: string;
  events: StoredMonitorEvent[];
  messages: ChatMessage[];
}

/** One configured provider in `GET /api/models`, its key reduced to whether one is set. */
export interface ProviderInfo {
  id: string;
  type: string;
  baseUrl: string | null;
  hasApiKey: boolean;
}

/** `POST /api/models/test` and `POST /api/setup/test`: one short request to one model. */
export interface ModelTestResult {
  ok: boolean;
  latencyMs: number;
  /** The model's answer, when it gave one. */
  text?: string;
  /** Why it failed (keys redacted by the client). */
  error?: string;
}

/** A row of `GET /api/usage`: the day's totals with their cost, recorded at the prices of each call's time (null: no price). */
export type UsageRow = UsageSummaryRow;

/** `GET /api/usage/daily`: each UTC day's calls, tokens and cost per chat and model. */
export interface DailySpendAnswer {
  /** The first day counted, `YYYY-MM-DD` (UTC). */
  since: string;
  /** Of `llm.prices`; null without prices. */
  currency: string | null;
  rows: DailySpendRow[];
}

/** One group's standing against the budgets (`GET /api/budgets`). */
export interface GroupBudgetReport extends BudgetReport {
  sessionId: string;
  groupId: string;
}

/** `GET /api/budgets`: the budgets in force, how much of each is used now, and who runs in economy. */
export interface BudgetsAnswer {
  currency: string | null;
  /** `limits.economyAt` (0: never steps down). */
  economyAt: number;
  /** `llm.models.economy`: without models, nothing steps down. */
  economyModels: string[];
  /** Budgets of all chats together. */
  all: BudgetReport;
  /** Each group chat with calls this month, with its own budgets; empty when no group budget is set. */
  groups: GroupBudgetReport[];
}

/** `GET /api/connect`: how to point a OneBot implementation at each adapter, and who is connected. */
export interface ConnectInfo {
  adapters: Array<{
    id: string;
    /** The OneBot connection mode, or "qq-official" for QQ's official bot API (url: its webhook). */
    mode: "reverse-ws" | "forward-ws" | "http" | "qq-official";
    url: string;
    apiUrl: string | null;
    /** HIDDEN_SECRET when the adapter has an access token or AppSecret (never the value), empty when it has none. */
    accessToken: string;
    accounts: ConsoleAccount[];
  }>;
}

/** `GET /api/pictures/description`: what the vision model said a stored message's picture shows. */
export interface PictureDescriptionAnswer {
  description: { kind: "image" | "sticker"; text: string; model: string } | null;
}

/** `GET /api/memory`: a page of memories, newest change first. */
export interface MemoryListAnswer {
  memories: MemoryEntry[];
}

/** A message a memory was learned from, with its stored text when the history still has it. */
export type MemorySourceView = MemorySource & { message: ChatMessage | null };

/** `GET /api/memory/:id`: one memory and the messages it was learned from. */
export interface MemoryDetail {
  memory: MemoryEntry;
  sources: MemorySourceView[];
}

/** `DELETE /api/memory?subject=…`: the ids of what was forgotten. */
export interface MemoryForgetAnswer {
  ids: number[];
}

/** One group in `GET /api/groups`: the bot's group, its activity over the last hour and day, and the bot's share of it. */
export interface GroupView {
  sessionId: string;
  platform: string;
  selfId: string;
  groupId: string;
  /** The group's name from its account's group list; null when the list does not have it. */
  name: string | null;
  memberCount: number | null;
  /** Whether an account's group list has it now (false: known only from stored messages). */
  listed: boolean;
  messagesLastHour: number;
  messagesLastDay: number;
  botMessagesLastDay: number;
  activeMembersLastDay: number;
  /** The bot's messages over all messages of the last day, 0..1 (0 with none). */
  botShare: number;
  /** Unix milliseconds of its newest stored message; null when none is stored. */
  lastMessageAt: number | null;
  /** Its last 24 hours hour by hour, oldest first: all messages and the bot's. */
  hourly: Array<{ messages: number; bot: number }>;
}

/** `GET /api/groups`. */
export interface GroupsAnswer {
  groups: GroupView[];
}

/** `GET /api/groups/expressions`: one group's learned way of talking. */
export interface GroupExpressionsAnswer {
  sessionId: string;
  expressions: GroupExpression[];
}
