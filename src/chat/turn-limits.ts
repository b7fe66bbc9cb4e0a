import type { Logger } from "../log/logger.ts";
import type { ChatMessage } from "../message/inbound.ts";
import type { Monitor } from "../monitor/monitor.ts";
import type { SessionOrigin } from "../reply/outbox.ts";
import type { Batch } from "./batch.ts";
import type { Clock } from "./clock.ts";
import type { LimitSettings } from "./config.ts";
import type { TurnWindows, WindowVerdict } from "./rate-limiter.ts";
import { recordRefusal } from "./refusal.ts";
import type { TokensToday, TokenTally } from "./token-budget.ts";

export type LimitName = Exclude<keyof LimitSettings, "notify">;

/** The window of the turns-per-minute limits. */
export const TURN_WINDOW_MS = 60_000;
const DAY_MS = 86_400_000;

/** What the bot says, once per chat and limit period, when `limits.notify` is on. */
export const LIMIT_NOTICES: Record<LimitName, string> = {
  userTurnsPerMinute: "说得太快了，稍后再试。",
  groupTurnsPerMinute: "大家说得太快了，稍后再试。",
  dailyTokens: "今天的额度用完了，明天再聊吧。",
  groupDailyTokens: "今天的额度用完了，明天再聊吧。",
};

/** A limit a batch ran into. */
interface Breach {
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

export interface TurnLimitsDeps {
  settings: () => LimitSettings;
  tokens: TokenTally;
  /** Turns per user and group chat in the last TURN_WINDOW_MS (this instance's, or the cluster's). */
  turns: TurnWindows;
  clock: Pick<Clock, "now">;
  /** Sends a notice into the chat, as the bot, under the refusal's reply id. */
  sendNotice: (origin: SessionOrigin, text: string, replyId: string) => Promise<void>;
  monitor: Monitor;
  logger: Logger;
}

/**
 * The last check before a batch becomes a turn: daily token budgets (all chats, one group),
 * turns per minute of the group chat and of each user who started it. A batch over a budget
 * or its group's rate is refused whole; the messages of a user over their rate are taken out
 * and the rest answered. Only turns that start are counted. Digests count for budgets only
 * and are refused without a notice (nobody asked for them).
 */
export class TurnLimits {
  /** Notice key (chat, limit, subject) → the period already noticed. */
  private readonly noticed = new Map<string, { period: string; endsAt: number }>();

  constructor(private readonly deps: TurnLimitsDeps) {}

  /** The batch, or the part of it, that may start a turn now; undefined when none may. */
  async admit(batch: Batch): Promise<Batch | undefined> {
    const settings = this.deps.settings();
    const budgets = settings.dailyTokens > 0 || settings.groupDailyTokens > 0;
    const today = budgets ? await this.deps.tokens.today(batch.sessionId) : undefined;
    const now = this.deps.clock.now();
    const overBudget = today && this.budgetBreach(batch, settings, today, now);
    if (overBudget) {
      await this.refuse(batch, overBudget, settings, now);
      return undefined;
    }
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
    let admitted = batch;
    for (const [index, starter] of users.entries()) {
      const window = verdict.each[index];
      if (!window || window.admitted) continue;
      const breach = rateBreach("userTurnsPerMinute", userKey(starter), window, settings);
      const [theirs, rest] =
        batch.kind === "realtime" ? splitBySender(admitted, starter.userId) : [admitted, undefined];
      await this.refuse(theirs, breach, settings, now);
      if (!rest) return undefined;
      admitted = rest;
    }
    return admitted;
  }

  private budgetBreach(
    batch: Batch,
    settings: LimitSettings,
    today: TokensToday,
    now: number,
  ): Breach | undefined {
    // The day ends within a day of now: long enough to remember its notice.
    const periodEndsAt = now + DAY_MS;
    if (settings.dailyTokens > 0 && today.total >= settings.dailyTokens) {
      const max = settings.dailyTokens;
      return {
        limit: "dailyTokens",
        subject: "all",
        value: today.total,
        max,
        period: today.day,
        periodEndsAt,
      };
    }
    if (settings.groupDailyTokens > 0 && isGroup(batch) && today.session >= settings.groupDailyTokens) {
      const max = settings.groupDailyTokens;
      const subject = batch.sessionId;
      return {
        limit: "groupDailyTokens",
        subject,
        value: today.session,
        max,
        period: today.day,
        periodEndsAt,
      };
    }
    return undefined;
  }

  private async refuse(batch: Batch, breach: Breach, settings: LimitSettings, now: number): Promise<void> {
    const notify = settings.notify && batch.kind !== "digest" && this.firstNotice(batch, breach, now);
    const origin = originOf(batch);
    await recordRefusal(
      this.deps,
      {
        type: "limit.reached",
        batch,
        detail: {
          limit: breach.limit,
          subject: breach.subject,
          value: breach.value,
          max: breach.max,
          userId: batch.requestedBy?.userId ?? batch.messages.find((m) => !m.fromSelf)?.userId ?? null,
          groupId: origin.groupId ?? null,
          notified: notify,
        },
        reason: `limits.${breach.limit} reached: ${breach.value}/${breach.max} (${breach.subject})`,
      },
      notify ? (replyId) => this.deps.sendNotice(origin, LIMIT_NOTICES[breach.limit], replyId) : undefined,
    );
  }

  /** Whether this is the first refusal in the chat for this limit, subject and period. */
  private firstNotice(batch: Batch, breach: Breach, now: number): boolean {
    const key = `${batch.sessionId}|${breach.limit}|${breach.subject}`;
    if (this.noticed.get(key)?.period === breach.period) return false;
    for (const [old, notice] of this.noticed) if (notice.endsAt <= now) this.noticed.delete(old);
    this.noticed.set(key, { period: breach.period, endsAt: breach.periodEndsAt });
    return true;
  }
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

/** A user across chats and adapters of one platform. */
function userKey(message: ChatMessage): string {
  return `${message.platform}:${message.userId}`;
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
