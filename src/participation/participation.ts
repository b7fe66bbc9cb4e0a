import { setTimeout as sleep } from "node:timers/promises";
import type { Batch } from "../chat/batch.ts";
import type { Arrival } from "../chat/chat-service.ts";
import type { StageStep } from "../chat/stage-path.ts";
import type { ZonedClock } from "../context/clock-text.ts";
import type { Logger } from "../log/logger.ts";
import type { ChatMessage } from "../message/inbound.ts";
import { renderSegments } from "../message/render.ts";
import { isSegment } from "../message/segment-guards.ts";
import { groupOfSession } from "../message/session-id.ts";
import type { Monitor } from "../monitor/monitor.ts";
import { ChatRecord, type GovernorRule } from "./chat-record.ts";
import type { ParticipationSettings } from "./config.ts";
import { scoreMessage, talkValueAt, thresholdOf } from "./score.ts";

/** How often a held unasked message looks again whether the chat has settled. */
const SETTLE_POLL_MS = 200;

/** What participation reads of the config in one chat (its per-group settings applied). */
export interface ParticipationInChat {
  participation: ParticipationSettings;
  otherBots: string[];
  /** The bot's name and aliases. */
  names: string[];
  interests: string[];
}

export interface ParticipationDeps {
  /** The settings in force in a session, read on every use (a reloaded config applies at once). */
  inChat: (sessionId: string) => ParticipationInChat;
  /** The clock of chat.timezone: the schedule's times are read on it. */
  clock: () => ZonedClock;
  /**
   * Tells a member once that the bot rests (participation_resting), when the ping-pong guard
   * starts leaving their addressed messages unanswered and `restNotice` is on.
   */
  tellResting: (message: ChatMessage) => void;
  monitor: Monitor;
  logger: Logger;
  now?: () => number;
}

/** One decision as the timeline and the console show it. */
export interface ParticipationDecision {
  time: number;
  joined: boolean;
  /** The rule that held the bot back; absent when it joined. */
  rule?: GovernorRule;
  score?: number;
  threshold?: number;
  messageId?: string;
  replyId?: string;
}

/** A chat's participation state, for the console (GET /api/participation). */
export interface ChatParticipation {
  sessionId: string;
  groupId: string | null;
  talkValue: number;
  quietUntil: number | null;
  unaskedLastHour: number;
  lastDecision: ParticipationDecision | null;
}

/**
 * Joining conversations unasked, and the governor: the hard rules, outside the model, that
 * bound it. It reads every message of the path (the `participation` stage), the bot's own sends
 * and typing notices; it decides whether an untriggered message becomes an unasked turn, drops
 * the triggers of other bots, checks an unasked turn again before it starts and clears (or
 * holds back) what such a turn would send. Every decision is a `participation.decided` event.
 */
export class Participation {
  private readonly records = new Map<string, ChatRecord>();
  private readonly lastDecisions = new Map<string, ParticipationDecision>();
  private readonly now: () => number;

  constructor(private readonly deps: ParticipationDeps) {
    this.now = deps.now ?? Date.now;
  }

  /** The message stage: records the message, and decides for an untriggered one whether the bot joins. */
  stage(arrival: Arrival): StageStep<Arrival> {
    const { message, trigger } = arrival;
    const now = this.now();
    const inChat = this.deps.inChat(message.sessionId);
    const settings = inChat.participation;
    const record = this.recordOf(message.sessionId);
    const text = renderSegments(message.segments);
    if (message.fromSelf) {
      record.botSpoke(now, text, message.messageId);
      return { go: arrival };
    }
    const broke = record.watchAnswer(message.userId, text, now, settings);
    if (broke !== undefined) {
      this.deps.logger.info(
        {
          sessionId: message.sessionId,
          userId: message.userId,
          rule: broke,
          pingPongMs: settings.pingPongMs,
        },
        broke === "ping-pong guard"
          ? `member answered the bot within pingPongMs ${settings.pingPongRounds} times in a row: not joined unasked for an hour, still answered when addressed`
          : `member's answers look automated (${broke}): treated as a bot for an hour, addressed messages too (chat.participation.pingPongMs 0 turns this off)`,
      );
    }
    const otherBot = inChat.otherBots.includes(message.userId);
    const automated = otherBot ? "other bot" : record.automatedRule(message.userId, now);
    const suspect = record.isSuspect(message.userId, now);
    record.heard(message.userId, now, otherBot || suspect);
    const quoted = quotedId(message);
    if (quoted !== undefined && record.inChain(quoted)) record.joinChain(message.messageId);
    if (trigger !== undefined && automated !== undefined) {
      // Another bot never starts a turn: a loop between two bots is how accounts get flagged.
      this.deps.logger.info(
        {
          sessionId: message.sessionId,
          userId: message.userId,
          messageId: message.messageId,
          rule: automated,
        },
        `addressed message not answered: ${automated}`,
      );
      this.decided(message.sessionId, { joined: false, rule: automated, messageId: message.messageId });
      if (!otherBot && settings.restNotice && record.firstTellOfRest(message.userId))
        this.deps.tellResting(message);
      return { go: { message } };
    }
    if (trigger === undefined && (otherBot || suspect)) {
      if (!participates(settings)) return { go: arrival };
      this.decided(message.sessionId, {
        joined: false,
        rule: automated ?? "ping-pong guard",
        messageId: message.messageId,
      });
      return { go: { message } };
    }
    const quietPhrase = settings.quietPhrases.some((phrase) => text.includes(phrase));
    if (quietPhrase) record.quietUntil = now + settings.quietMinutes * 60_000;
    if (trigger !== undefined) {
      record.joinChain(message.messageId);
      return { go: arrival };
    }
    if (!participates(settings)) return { go: arrival };
    if (quietPhrase) {
      this.decided(message.sessionId, { joined: false, rule: "quiet", messageId: message.messageId });
      return { go: arrival };
    }
    const talkValue = talkValueAt(settings, this.deps.clock().time(now));
    if (talkValue === 0) {
      this.decided(message.sessionId, { joined: false, rule: "schedule", messageId: message.messageId });
      return { go: arrival };
    }
    const score = scoreMessage({ text, ...(quoted !== undefined && { quotedId: quoted }) }, record, {
      names: inChat.names,
      interests: inChat.interests,
      now,
    });
    const threshold = thresholdOf(talkValue);
    const rule = score.value < threshold ? "score" : record.capBroken(settings, now);
    const decision = { score: score.value, threshold, messageId: message.messageId };
    if (rule !== undefined) {
      this.decided(message.sessionId, { ...decision, joined: false, rule }, score.parts);
      return { go: arrival };
    }
    this.decided(message.sessionId, { ...decision, joined: true }, score.parts);
    return { go: { ...arrival, unasked: { score: score.value, threshold } } };
  }

  /** The bot sent a message in the session (the outbox's `message.sent`). */
  botSent(sessionId: string, text: string, messageId: string | undefined): void {
    this.recordOf(sessionId).botSpoke(this.now(), text, messageId);
  }

  /** A typing notice: `userId` is (or stopped) typing in the session. */
  typing(sessionId: string, userId: string, typing: boolean): void {
    this.recordOf(sessionId).typing(userId, typing, this.now());
  }

  /** Quiet (unasked) in the session for `minutes`; 0 ends it. Returns when it ends (0: not quiet). */
  quiet(sessionId: string, minutes: number): number {
    const record = this.recordOf(sessionId);
    record.quietUntil = minutes > 0 ? this.now() + minutes * 60_000 : 0;
    return record.quietUntil;
  }

  /** The sessions this instance has seen of a group (the console may name a chat by its group id). */
  sessionsOf(chat: string): string[] {
    if (this.records.has(chat)) return [chat];
    return [...this.records.keys()].filter((sessionId) => groupOfSession(sessionId) === chat);
  }

  /** A turn gate: an unasked turn about to start, checked again (time passed while it waited). */
  mayStart(batch: Batch): string | undefined {
    if (!batch.unasked) return undefined;
    const settings = this.settingsOf(batch.sessionId);
    const rule = this.recordOf(batch.sessionId).capBroken(settings, this.now());
    if (rule === undefined) return undefined;
    this.decided(batch.sessionId, { joined: false, rule, messageId: batch.triggerIds.at(-1) });
    return `held back by the governor: ${rule}`;
  }

  /**
   * The send side of an unasked turn: waits while the chat is busy (a burst, someone typing),
   * then says why `text` must not be sent (quiet, a cap, said before), or clears it and counts it.
   */
  async clearToSend(
    batch: Batch,
    replyId: string,
    text: string,
    signal: AbortSignal,
  ): Promise<string | undefined> {
    const { sessionId } = batch;
    const settings = this.settingsOf(sessionId);
    const record = this.recordOf(sessionId);
    const deadline = this.now() + settings.maxWaitMs;
    while (record.busy(settings, this.now()) && this.now() < deadline) {
      await sleep(SETTLE_POLL_MS, undefined, { signal });
    }
    const now = this.now();
    const rule: GovernorRule | undefined = record.busy(settings, now)
      ? "chat busy"
      : (record.capBroken(settings, now) ?? (record.repeats(text) ? "near-identical" : undefined));
    if (rule !== undefined) {
      this.decided(sessionId, { joined: false, rule, replyId });
      return `held back by the governor: ${rule}`;
    }
    record.spokeUnasked(now);
    return undefined;
  }

  /** A decision made elsewhere (the gate model said no), on the timeline like the rest. */
  heldBack(batch: Batch, rule: GovernorRule): string {
    this.decided(batch.sessionId, { joined: false, rule, messageId: batch.triggerIds.at(-1) });
    return `held back: ${rule}`;
  }

  /** Every chat seen since start, for the console. */
  chats(): ChatParticipation[] {
    const now = this.now();
    return [...this.records].map(([sessionId, record]) => {
      const settings = this.settingsOf(sessionId);
      return {
        sessionId,
        groupId: groupOfSession(sessionId) ?? null,
        talkValue: talkValueAt(settings, this.deps.clock().time(now)),
        quietUntil: record.quietUntil > now ? record.quietUntil : null,
        unaskedLastHour: record.unaskedInHour(now),
        lastDecision: this.lastDecisions.get(sessionId) ?? null,
      };
    });
  }

  private settingsOf(sessionId: string): ParticipationSettings {
    return this.deps.inChat(sessionId).participation;
  }

  private recordOf(sessionId: string): ChatRecord {
    let record = this.records.get(sessionId);
    if (!record) {
      record = new ChatRecord();
      this.records.set(sessionId, record);
    }
    return record;
  }

  private decided(sessionId: string, decision: Omit<ParticipationDecision, "time">, parts?: string[]): void {
    const made = { time: this.now(), ...decision };
    this.lastDecisions.set(sessionId, made);
    const { replyId, ...data } = made;
    this.deps.monitor.emit({
      type: "participation.decided",
      sessionId,
      ...(replyId !== undefined && { replyId }),
      data: { ...data, ...(parts && { parts }) },
    });
    this.deps.logger.debug({ sessionId, ...decision }, decision.joined ? "joining unasked" : "held back");
  }
}

/** Whether the bot may ever speak unasked with these settings (talkValue or a scheduled one above 0). */
function participates(settings: ParticipationSettings): boolean {
  return settings.talkValue > 0 || settings.schedule.some((period) => period.talkValue > 0);
}

function quotedId(message: ChatMessage): string | undefined {
  const reply = message.segments.find((segment) => isSegment(segment, "reply"));
  return isSegment(reply, "reply") ? String(reply.data.id) : undefined;
}
