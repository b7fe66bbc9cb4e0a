import type { LimitSettings } from "./config.ts";
import type { BudgetPeriod } from "./spending.ts";

/**
 * The limits and budgets of limits.*: their names, what the chat is told, and the budget table
 * the turn limits (turn-limits.ts) check spending against.
 */
export type LimitName = Exclude<keyof LimitSettings, "notify" | "economyAt">;

/** What the bot says, once per chat and limit period, when `limits.notify` is on. */
export const LIMIT_NOTICES: Record<LimitName, string> = {
  userTurnsPerMinute: "说得太快了，稍后再试。",
  groupTurnsPerMinute: "大家说得太快了，稍后再试。",
  dailyTokens: "今天的额度用完了，明天再聊吧。",
  groupDailyTokens: "今天的额度用完了，明天再聊吧。",
  userDailyTokens: "你今天的额度用完了，明天再聊吧。",
  dailyCost: "今天的额度用完了，明天再聊吧。",
  monthlyCost: "这个月的额度用完了，下个月再聊吧。",
  groupDailyCost: "今天的额度用完了，明天再聊吧。",
  groupMonthlyCost: "这个月的额度用完了，下个月再聊吧。",
  userDailyCost: "你今天的额度用完了，明天再聊吧。",
};

/** What the bot's admins are told in private, once per group, budget and period, at limits.economyAt. */
export function economyNotice(groupId: string, limit: string, share: number): string {
  return `群 ${groupId} 已用掉 limits.${limit} 的 ${Math.floor(share * 100)}%：之后的对话改用 llm.models.economy（若已设置），用完即停。`;
}

export type BudgetName = Exclude<LimitName, "userTurnsPerMinute" | "groupTurnsPerMinute">;

/** One budget: whose spending it caps (all chats, the group chat, the user who started the turn), over what, in what. */
export interface Budget {
  limit: BudgetName;
  scope: "all" | "group" | "user";
  period: BudgetPeriod;
  measure: "tokens" | "cost";
}

/** Every budget, in the order they are checked: the widest first. */
export const BUDGETS: readonly Budget[] = [
  { limit: "dailyTokens", scope: "all", period: "day", measure: "tokens" },
  { limit: "dailyCost", scope: "all", period: "day", measure: "cost" },
  { limit: "monthlyCost", scope: "all", period: "month", measure: "cost" },
  { limit: "groupDailyTokens", scope: "group", period: "day", measure: "tokens" },
  { limit: "groupDailyCost", scope: "group", period: "day", measure: "cost" },
  { limit: "groupMonthlyCost", scope: "group", period: "month", measure: "cost" },
  { limit: "userDailyTokens", scope: "user", period: "day", measure: "tokens" },
  { limit: "userDailyCost", scope: "user", period: "day", measure: "cost" },
];

/** One budget of all chats or of a group, and how much of it is used in its current period. */
export interface BudgetUse {
  limit: BudgetName;
  scope: "all" | "group";
  period: BudgetPeriod;
  /** The current period in `chat.timezone`: `YYYY-MM-DD` or `YYYY-MM`. */
  periodName: string;
  measure: Budget["measure"];
  used: number;
  max: number;
  /** used / max: at limits.economyAt turns step down, at 1 they stop. */
  share: number;
}

/** Where spending stands against the budgets in force, for all chats or one group. */
export interface BudgetReport {
  budgets: BudgetUse[];
  /** Turns run on llm.models.economy: a budget's share reached limits.economyAt (and such models are set). */
  economy: boolean;
  /** A budget is used up: turns are refused until its period ends. */
  stopped: boolean;
}

/** Whether any token or money budget is set (only then is spending read and counted). */
export function budgetsSet(settings: LimitSettings): boolean {
  return BUDGETS.some((budget) => settings[budget.limit] > 0);
}

/** How near a batch's chat or user is to one budget. */
export interface BudgetStanding extends Breach {
  /** value / max. */
  share: number;
  scope: Budget["scope"];
  budget: Budget;
}

/** A limit a batch ran into. */
export interface Breach {
  limit: LimitName;
  /** Whose limit it is: a user (`platform:userId`), a group chat (its session id) or `all`. */
  subject: string;
  value: number;
  max: number;
  /** One notice per period: the day for budgets, the moment the window frees for rates. */
  period: string;
  /** When remembering the notice of this period stops mattering. */
  periodEndsAt: number;
}
