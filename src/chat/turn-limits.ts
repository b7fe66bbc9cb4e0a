import type { Logger } from "../log/logger.ts";
import type { ChatMessage } from "../message/inbound.ts";
import { userNamespace } from "../message/message-source.ts";
import type { Monitor } from "../monitor/monitor.ts";
import type { SessionOrigin } from "../reply/outbox.ts";
import type { Batch } from "./batch.ts";
import {
  type Breach,
  BUDGETS,
  type BudgetReport,
  type BudgetStanding,
  budgetsSet,
  economyNotice,
  LIMIT_NOTICES,
} from "./budgets.ts";
import type { Clock } from "./clock.ts";
import type { LimitSettings } from "./config.ts";
import type { TurnWindows, WindowVerdict } from "./rate-limiter.ts";
import { recordRefusal } from "./refusal.ts";
import type { BudgetPeriod, SpendingTallies, SpentInPeriod } from "./spending.ts";

/** The window of the turns-per-minute limits. */
export const TURN_WINDOW_MS = 60_000;
const DAY_MS = 86_400_000;

/** Whether a chat command may run now; when not, the notice to answer it with, if any. */
export type CommandAdmission = { admitted: true } | { admitted: false; notice?: string };

export interface TurnLimitsDeps {
  settings: () => LimitSettings;
  /** `llm.models.economy`: only with models to step down to does a turn run in economy. */
  economyModels: () => readonly string[];
  /** The private chats of the bot's admins (`bot.admins`) on the platform of `origin`: told when a group nears a budget. */
  adminChats: (origin: SessionOrigin) => SessionOrigin[];
  spending: SpendingTallies;
  /** Turns per user and group chat in the last TURN_WINDOW_MS (this instance's, or the cluster's). */
  turns: TurnWindows;
  clock: Pick<Clock, "now">;
  /** Sends a notice into the chat, as the bot, under the refusal's reply id. */
  sendNotice: (origin: SessionOrigin, text: string, replyId: string) => Promise<void>;
  monitor: Monitor;
  logger: Logger;
}

/**
 * The last check before a batch becomes a turn: daily token budgets (all chats, one group,
 * each user who started it), turns per minute of the group chat and of each user who started
 * it. A batch over a budget or its group's rate is refused whole; the messages of a user over
 * their budget or rate are taken out and the rest answered. Only turns that start are counted.
 * Digests count for budgets only and are refused without a notice (nobody asked for them).
 * The budgets are checked again before each further model call of a running turn (`crossed`).
 */
export class TurnLimits {
  /** Notice key (chat, limit, subject) → the period already noticed. */
  private readonly noticed = new Map<string, { period: string; endsAt: number }>();
  /** Budget key (limit, subject) → the period whose economy was already announced. */
  private readonly economyAnnounced = new Map<string, { period: string; endsAt: number }>();

  constructor(private readonly deps: TurnLimitsDeps) {}

  /** The batch, or the part of it, that may start a turn now; undefined when none may. */
  async admit(batch: Batch): Promise<Batch | undefined> {
    const settings = this.deps.settings();
    const now = this.deps.clock.now();
    const overBudget = budgetsSet(settings) && (await this.budgetBreach(batch, undefined, settings, now));
    if (overBudget) {
      await this.refuse(batch, overBudget, settings, now);
      return undefined;
    }
    let admitted: Batch | undefined = batch;
    if (BUDGETS.some((budget) => budget.scope === "user" && settings[budget.limit] > 0)) {
      for (const starter of starters(batch)) {
        const breach = await this.budgetBreach(batch, userKey(starter), settings, now);
        if (breach) admitted = await this.refuseStarter(admitted, starter, breach, settings, now);
        if (!admitted) return undefined;
      }
    }
    admitted = await this.admitRates(admitted, settings, now);
    return admitted && budgetsSet(settings) ? this.withEconomy(admitted, settings, now) : admitted;
  }

  /**
   * The batch marked to run on `llm.models.economy` when its chat's, its user's or everyone's
   * spending reached `limits.economyAt` of a budget (and such models are set). A group's first
   * crossing in a period is logged and told to the bot's admins in private, once.
   */
  private async withEconomy(batch: Batch, settings: LimitSettings, now: number): Promise<Batch> {
    if (settings.economyAt <= 0) return batch;
    const standings = await this.standings(batch, turnUser(batch), settings, now);
    const nearest = standings.reduce<BudgetStanding | undefined>(
      (most, standing) => (most && most.share >= standing.share ? most : standing),
      undefined,
    );
    if (!nearest || nearest.share < settings.economyAt) return batch;
    const group = standings.find(
      (standing) => standing.scope === "group" && standing.share >= settings.economyAt,
    );
    if (group) await this.announceEconomy(batch, group, now);
    if (this.deps.economyModels().length === 0) return batch;
    return { ...batch, economy: { limit: nearest.limit, share: nearest.share } };
  }

  private async announceEconomy(batch: Batch, standing: BudgetStanding, now: number): Promise<void> {
    const key = `${standing.limit}|${standing.subject}`;
    if (this.economyAnnounced.get(key)?.period === standing.period) return;
    for (const [old, notice] of this.economyAnnounced)
      if (notice.endsAt <= now) this.economyAnnounced.delete(old);
    this.economyAnnounced.set(key, { period: standing.period, endsAt: standing.periodEndsAt });
    const origin = originOf(batch);
    const stepsDown = this.deps.economyModels().length > 0;
    this.deps.logger.info(
      {
        sessionId: batch.sessionId,
        limit: standing.limit,
        value: standing.value,
        max: standing.max,
        stepsDown,
      },
      stepsDown
        ? "a group reached limits.economyAt of a budget: its turns run on llm.models.economy"
        : "a group reached limits.economyAt of a budget (no llm.models.economy to step down to)",
    );
    const groupId = origin.groupId ?? batch.sessionId;
    const text = economyNotice(groupId, standing.limit, standing.share);
    for (const chat of this.deps.adminChats(origin)) {
      try {
        await this.deps.sendNotice(chat, text, `economy:${batch.sessionId}:${standing.period}`);
      } catch (error) {
        this.deps.logger.warn(
          { err: error, admin: chat.userId },
          "could not tell an admin that a group nears its budget",
        );
      }
    }
  }

  /**
   * Whether a chat command may run and answer now: it counts in its sender's and its group's
   * turns per minute as a turn does (a member sending thirty commands gets the limit's worth of
   * answers, not thirty). Over either, the command is not run; the limit's notice is its answer
   * once per chat and period (with `limits.notify`), shared with the turns', then nothing.
   */
  async admitCommand(message: ChatMessage): Promise<CommandAdmission> {
    const settings = this.deps.settings();
    const now = this.deps.clock.now();
    const group = message.chatType === "group" ? message.sessionId : undefined;
    const user = userKey(message);
    const verdict = await this.deps.turns.admit(
      {
        ...(group !== undefined && { whole: { key: `group:${group}`, limit: settings.groupTurnsPerMinute } }),
        each: [{ key: `user:${user}`, limit: settings.userTurnsPerMinute }],
      },
      now,
    );
    const breach =
      group !== undefined && verdict.whole?.admitted === false
        ? rateBreach("groupTurnsPerMinute", group, verdict.whole, settings)
        : verdict.each[0]?.admitted === false
          ? rateBreach("userTurnsPerMinute", user, verdict.each[0], settings)
          : undefined;
    if (breach === undefined) return { admitted: true };
    const notify = settings.notify && this.firstNotice(message.sessionId, breach, now);
    this.deps.logger.info(
      {
        sessionId: message.sessionId,
        userId: message.userId,
        reason: breachReason(breach),
        notified: notify,
      },
      "command not run: over a rate limit",
    );
    return notify ? { admitted: false, notice: LIMIT_NOTICES[breach.limit] } : { admitted: false };
  }

  /**
   * Before a running turn's next model call (its first was admitted): the budget its spending
   * or anyone's crossed meanwhile, else undefined. The chat is told once, as when a turn is
   * refused, under the turn's reply id; the reason returned names the budget.
   */
  async crossed(batch: Batch, replyId: string): Promise<string | undefined> {
    const settings = this.deps.settings();
    if (!budgetsSet(settings)) return undefined;
    const now = this.deps.clock.now();
    const breach = await this.budgetBreach(batch, turnUser(batch), settings, now);
    if (!breach) return undefined;
    const notify = settings.notify && saysLimits(batch) && this.firstNotice(batch.sessionId, breach, now);
    const reason = `${breachReason(breach)}; the turn stopped before its next model call`;
    this.deps.monitor.emit({
      type: "limit.reached",
      replyId,
      sessionId: batch.sessionId,
      data: { ...breachDetail(batch, breach, notify), triggerIds: batch.triggerIds },
    });
    if (notify) {
      try {
        await this.deps.sendNotice(originOf(batch), LIMIT_NOTICES[breach.limit], replyId);
      } catch (error) {
        this.deps.logger.warn({ replyId, err: error }, "could not send the notice of a stopped turn");
      }
    }
    this.deps.logger.info({ replyId, sessionId: batch.sessionId, reason }, "turn stopped by a budget");
    return reason;
  }

  private async admitRates(batch: Batch, settings: LimitSettings, now: number): Promise<Batch | undefined> {
    // Rates are checked and counted in one step (TurnWindows), so turns starting together
    // cannot both pass a check only one of them should.
    const group = batch.kind !== "digest" && isGroup(batch) ? batch.sessionId : undefined;
    const users = starters(batch);
    const verdict = await this.deps.turns.admit(
      {
        ...(group !== undefined && { whole: { key: `group:${group}`, limit: settings.groupTurnsPerMinute } }),
        each: users.map((user) => ({ key: `user:${userKey(user)}`, limit: settings.userTurnsPerMinute })),
      },
      now,
    );
    if (group !== undefined && verdict.whole?.admitted === false) {
      await this.refuse(
        batch,
        rateBreach("groupTurnsPerMinute", group, verdict.whole, settings),
        settings,
        now,
      );
      return undefined;
    }
    let admitted: Batch | undefined = batch;
    for (const [index, starter] of users.entries()) {
      const window = verdict.each[index];
      if (!window || window.admitted) continue;
      const breach = rateBreach("userTurnsPerMinute", userKey(starter), window, settings);
      admitted = await this.refuseStarter(admitted, starter, breach, settings, now);
      if (!admitted) return undefined;
    }
    return admitted;
  }

  /** Refuses a starter's messages; the rest of a realtime batch, when it still has triggers. */
  private async refuseStarter(
    batch: Batch,
    starter: ChatMessage,
    breach: Breach,
    settings: LimitSettings,
    now: number,
  ): Promise<Batch | undefined> {
    const [theirs, rest] =
      batch.kind === "realtime" ? splitBySender(batch, starter.userId) : [batch, undefined];
    await this.refuse(theirs, breach, settings, now);
    return rest;
  }

  /** The first budget the spending is at or over: all chats', the group's, then `user`'s. */
  private async budgetBreach(
    batch: Batch,
    user: string | undefined,
    settings: LimitSettings,
    now: number,
  ): Promise<Breach | undefined> {
    const standings = await this.standings(batch, user, settings, now);
    return standings.find((standing) => standing.value >= standing.max);
  }

  /** Where the batch's spending stands against each budget set that applies to it, in BUDGETS order. */
  private standings(
    batch: Batch,
    user: string | undefined,
    settings: LimitSettings,
    now: number,
  ): Promise<BudgetStanding[]> {
    return this.standingsIn(batch.sessionId, isGroup(batch), user, settings, now);
  }

  /**
   * Where spending stands now against each budget set: all chats' and, for a group chat's
   * session id, that group's; with whether the group's turns (every chat's, without one) run on
   * `llm.models.economy` and whether they are stopped. The console's budgets table reads this;
   * a user's own budgets count only for the turns they start, so they are not part of it.
   */
  async report(groupSessionId?: string): Promise<BudgetReport> {
    const settings = this.deps.settings();
    const standings = await this.standingsIn(
      groupSessionId ?? "",
      groupSessionId !== undefined,
      undefined,
      settings,
      this.deps.clock.now(),
    );
    const economyAt = settings.economyAt;
    return {
      budgets: standings.map(({ budget, value, max, share, period }) => ({
        limit: budget.limit,
        scope: budget.scope === "all" ? "all" : "group",
        period: budget.period,
        periodName: period,
        measure: budget.measure,
        used: value,
        max,
        share,
      })),
      economy:
        economyAt > 0 &&
        this.deps.economyModels().length > 0 &&
        standings.some((standing) => standing.share >= economyAt && standing.share < 1),
      stopped: standings.some((standing) => standing.value >= standing.max),
    };
  }

  private async standingsIn(
    sessionId: string,
    group: boolean,
    user: string | undefined,
    settings: LimitSettings,
    now: number,
  ): Promise<BudgetStanding[]> {
    const set = BUDGETS.filter(
      (budget) =>
        settings[budget.limit] > 0 &&
        (budget.scope !== "group" || group) &&
        (budget.scope !== "user" || user !== undefined),
    );
    const spent: Partial<Record<BudgetPeriod, SpentInPeriod>> = {};
    for (const period of new Set(set.map((budget) => budget.period))) {
      spent[period] = await this.deps.spending[period].spent(sessionId, user);
    }
    // A period ends within a day (a month) of now: long enough to remember its notice.
    const periodEndsAt = (period: BudgetPeriod) => now + (period === "day" ? DAY_MS : 31 * DAY_MS);
    return set.map((budget) => {
      const inPeriod = spent[budget.period]!;
      const part =
        budget.scope === "all" ? inPeriod.total : budget.scope === "group" ? inPeriod.session : inPeriod.user;
      const value = part[budget.measure];
      const max = settings[budget.limit];
      const subject = budget.scope === "all" ? "all" : budget.scope === "group" ? sessionId : user!;
      return {
        limit: budget.limit,
        scope: budget.scope,
        budget,
        subject,
        value,
        max,
        share: value / max,
        period: inPeriod.period,
        periodEndsAt: periodEndsAt(budget.period),
      };
    });
  }

  private async refuse(batch: Batch, breach: Breach, settings: LimitSettings, now: number): Promise<void> {
    const notify = settings.notify && saysLimits(batch) && this.firstNotice(batch.sessionId, breach, now);
    const origin = originOf(batch);
    await recordRefusal(
      this.deps,
      {
        type: "limit.reached",
        batch,
        detail: breachDetail(batch, breach, notify),
        reason: breachReason(breach),
      },
      notify ? (replyId) => this.deps.sendNotice(origin, LIMIT_NOTICES[breach.limit], replyId) : undefined,
    );
  }

  /** Whether this is the first refusal in the chat for this limit, subject and period. */
  private firstNotice(sessionId: string, breach: Breach, now: number): boolean {
    const key = `${sessionId}|${breach.limit}|${breach.subject}`;
    if (this.noticed.get(key)?.period === breach.period) return false;
    for (const [old, notice] of this.noticed) if (notice.endsAt <= now) this.noticed.delete(old);
    this.noticed.set(key, { period: breach.period, endsAt: breach.periodEndsAt });
    return true;
  }
}

/** What the timeline shows of a limit reached. */
function breachDetail(batch: Batch, breach: Breach, notified: boolean): Record<string, unknown> {
  return {
    limit: breach.limit,
    subject: breach.subject,
    value: breach.value,
    max: breach.max,
    userId: batch.requestedBy?.userId ?? batch.messages.find((m) => !m.fromSelf)?.userId ?? null,
    groupId: originOf(batch).groupId ?? null,
    notified,
  };
}

/** One line naming the limit, its subject and the values compared. */
function breachReason(breach: Breach): string {
  const value = Number.isInteger(breach.value) ? breach.value : Number(breach.value.toFixed(4));
  return `limits.${breach.limit} reached: ${value}/${breach.max} (${breach.subject})`;
}

/**
 * The user a turn's spending is counted for: who asked for a summary, else the sender of the
 * first trigger from someone other than the bot; none for digests (nobody asked for them).
 */
export function turnUser(batch: Batch): string | undefined {
  const starter = starters(batch)[0];
  return starter && userKey(starter);
}

/** A rate limit a window refused; one notice until the window frees. */
function rateBreach(
  limit: "userTurnsPerMinute" | "groupTurnsPerMinute",
  subject: string,
  refused: WindowVerdict,
  settings: LimitSettings,
): Breach {
  const { count, freesAt } = refused;
  return {
    limit,
    subject,
    value: count,
    max: settings[limit],
    period: String(freesAt),
    periodEndsAt: freesAt,
  };
}

/** Whether a limit that stops the batch's turn is said in the chat: not for turns nobody asked for (digests, unasked joins). */
function saysLimits(batch: Batch): boolean {
  return batch.kind !== "digest" && batch.unasked === undefined;
}

/** One message per user who started the batch: the senders of its triggers, or who asked for a summary. */
function starters(batch: Batch): ChatMessage[] {
  if (batch.kind === "summary") return batch.requestedBy ? [batch.requestedBy] : [];
  if (batch.kind === "digest") return [];
  const triggers = new Set(batch.triggerIds);
  const byUser = new Map<string, ChatMessage>();
  for (const message of batch.messages) {
    if (triggers.has(message.messageId) && !byUser.has(message.userId)) byUser.set(message.userId, message);
  }
  return [...byUser.values()];
}

/** A user across chats and adapters of one platform (of one stdio channel: each names its own users). */
function userKey(message: ChatMessage): string {
  return `${userNamespace(message)}:${message.userId}`;
}

/** The sender's messages of a realtime batch, and the rest when they still trigger a turn. */
function splitBySender(batch: Batch, userId: string): [Batch, Batch | undefined] {
  const part = (keep: (message: ChatMessage) => boolean): Batch => {
    const messages = batch.messages.filter(keep);
    const ids = new Set(messages.map((m) => m.messageId));
    return { ...batch, messages, triggerIds: batch.triggerIds.filter((id) => ids.has(id)) };
  };
  const theirs = part((m) => m.userId === userId);
  const rest = part((m) => m.userId !== userId);
  return [theirs, rest.triggerIds.length > 0 ? rest : undefined];
}

function originOf(batch: Batch): ChatMessage {
  return batch.requestedBy ?? batch.messages[0]!;
}

function isGroup(batch: Batch): boolean {
  return originOf(batch).chatType === "group";
}
