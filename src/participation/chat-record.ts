import type { ParticipationSettings } from "./config.ts";

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
/** How far back the chat's activity is counted (messages by people), and how many are kept. */
const ACTIVITY_WINDOW_MS = 5 * MINUTE_MS;
const ACTIVITY_KEPT = 50;
/** The bot's own recent messages compared with a new unasked one. */
const OWN_TEXTS_KEPT = 10;
/** Message ids of the bot's conversation (its messages and the replies to them), kept per chat. */
const CHAIN_KEPT = 100;
/** A typing notice holds the chat this long unless a newer one ends or renews it. */
const TYPING_HOLDS_MS = 10_000;
/** How long a member answering like a bot (the ping-pong guard) is treated as one. */
const SUSPECT_FOR_MS = HOUR_MS;
/** Longest text of a member's kept to compare the next answer with. */
const ANSWER_CHARS_KEPT = 200;
/** Two texts at least this similar (character pairs, 0..1) are one message said twice. */
const NEAR_IDENTICAL = 0.8;

/** A hard rule that kept the bot from speaking unasked. */
export type GovernorRule =
  | "schedule"
  | "other bot"
  | "ping-pong guard"
  | "ping-pong guard: near-identical answers"
  | "ping-pong guard: bot-like cadence"
  | "quiet"
  | "score"
  | "min gap"
  | "hourly cap"
  | "consecutive cap"
  | "near-identical"
  | "chat busy"
  | "gate model";

/**
 * What the governor knows of one chat, kept in memory: people's recent messages, the bot's
 * messages in a row, its unasked messages in the last hour, quiet, who is typing, and who
 * answers the bot like a bot. Times are the bot's clock (milliseconds) when it saw each thing.
 */
export class ChatRecord {
  private readonly peopleAt: number[] = [];
  private lastBotAt = Number.NEGATIVE_INFINITY;
  /** The bot's messages since the last message by a person. */
  private botRun = 0;
  private readonly unaskedAt: number[] = [];
  private readonly ownTexts: string[] = [];
  private readonly chain = new Set<string>();
  private readonly typingUntil = new Map<string, number>();
  private readonly answers = new Map<string, AnswerStreak>();
  /** Members answering quickly too often for joining them unasked (pingPongRounds). */
  private readonly suspectUntil = new Map<string, number>();
  /** Members whose answers look automated: even their addressed messages go unanswered. */
  private readonly automatedUntil = new Map<string, { until: number; rule: GovernorRule; told: boolean }>();
  quietUntil = 0;

  /** A message by someone other than the bot; `asBot` when it is another bot's (or a suspected one's). */
  heard(userId: string, now: number, asBot: boolean): void {
    this.typingUntil.delete(userId);
    if (asBot) return;
    this.botRun = 0;
    this.peopleAt.push(now);
    if (this.peopleAt.length > ACTIVITY_KEPT) this.peopleAt.shift();
  }

  /**
   * The ping-pong guard: counts how often in a row `userId` answered within `pingPongMs` of the
   * bot's last message, and how many of those answers said nearly what the one before did. At
   * `pingPongRounds` quick answers the bot stops joining them unasked for an hour; at
   * `pingPongAddressedRounds` (bot-like cadence) or `pingPongRepeatRounds` near-identical ones
   * their messages look automated and even addressed ones go unanswered for an hour.
   * Returns the rule this message newly broke, if any.
   */
  watchAnswer(
    userId: string,
    text: string,
    now: number,
    settings: ParticipationSettings,
  ): GovernorRule | undefined {
    if (settings.pingPongMs === 0) return undefined;
    const quick = now - this.lastBotAt <= settings.pingPongMs;
    const said = normalized(text).slice(0, ANSWER_CHARS_KEPT);
    const last = this.answers.get(userId);
    const streak: AnswerStreak = quick
      ? {
          quick: (last?.quick ?? 0) + 1,
          repeated:
            last !== undefined && last.quick > 0 && similarity(last.text, said) >= NEAR_IDENTICAL
              ? last.repeated + 1
              : 1,
          text: said,
        }
      : { quick: 0, repeated: 0, text: said };
    this.answers.set(userId, streak);
    const automated =
      streak.repeated >= settings.pingPongRepeatRounds
        ? "ping-pong guard: near-identical answers"
        : streak.quick >= settings.pingPongAddressedRounds
          ? "ping-pong guard: bot-like cadence"
          : undefined;
    if (automated !== undefined && !this.isAutomated(userId, now)) {
      this.automatedUntil.set(userId, { until: now + SUSPECT_FOR_MS, rule: automated, told: false });
      return automated;
    }
    if (streak.quick >= settings.pingPongRounds && !this.isSuspect(userId, now)) {
      this.suspectUntil.set(userId, now + SUSPECT_FOR_MS);
      return "ping-pong guard";
    }
    return undefined;
  }

  /** Not joined unasked: answered quickly `pingPongRounds` times in a row (or looks automated). */
  isSuspect(userId: string, now: number): boolean {
    return (this.suspectUntil.get(userId) ?? 0) > now || this.isAutomated(userId, now);
  }

  isAutomated(userId: string, now: number): boolean {
    return (this.automatedUntil.get(userId)?.until ?? 0) > now;
  }

  /** The rule that makes `userId` look automated now, if any. */
  automatedRule(userId: string, now: number): GovernorRule | undefined {
    const automated = this.automatedUntil.get(userId);
    return automated !== undefined && automated.until > now ? automated.rule : undefined;
  }

  /** True the first time it is asked in an automated period: the member is told once. */
  firstTellOfRest(userId: string): boolean {
    const automated = this.automatedUntil.get(userId);
    if (!automated || automated.told) return false;
    automated.told = true;
    return true;
  }

  /** A message of the bot in this chat (any of its accounts). */
  botSpoke(now: number, text: string, messageId: string | undefined): void {
    this.lastBotAt = now;
    this.botRun++;
    this.ownTexts.push(normalized(text));
    if (this.ownTexts.length > OWN_TEXTS_KEPT) this.ownTexts.shift();
    if (messageId !== undefined) this.joinChain(messageId);
  }

  /** The bot's conversation goes on in a message replying to one of it. */
  joinChain(messageId: string): void {
    this.chain.add(messageId);
    if (this.chain.size > CHAIN_KEPT) this.chain.delete(this.chain.values().next().value!);
  }

  inChain(messageId: string): boolean {
    return this.chain.has(messageId);
  }

  typing(userId: string, typing: boolean, now: number): void {
    if (typing) this.typingUntil.set(userId, now + TYPING_HOLDS_MS);
    else this.typingUntil.delete(userId);
  }

  /** An unasked message was cleared to go. */
  spokeUnasked(now: number): void {
    this.unaskedAt.push(now);
  }

  /** People's messages in the last five minutes. */
  activity(now: number): number {
    return this.peopleAt.filter((at) => now - at <= ACTIVITY_WINDOW_MS).length;
  }

  msSinceBot(now: number): number {
    return now - this.lastBotAt;
  }

  unaskedInHour(now: number): number {
    while (this.unaskedAt.length > 0 && now - this.unaskedAt[0]! >= HOUR_MS) this.unaskedAt.shift();
    return this.unaskedAt.length;
  }

  /** The rule an unasked message breaks now, before any text exists: quiet and the caps. */
  capBroken(settings: ParticipationSettings, now: number): GovernorRule | undefined {
    if (this.quietUntil > now) return "quiet";
    const last = this.unaskedAt.at(-1);
    if (last !== undefined && now - last < settings.minGapMs) return "min gap";
    if (this.unaskedInHour(now) >= settings.maxPerHour) return "hourly cap";
    if (this.botRun >= settings.maxConsecutive) return "consecutive cap";
    return undefined;
  }

  /** Whether `text` says again what one of the bot's recent messages here said. */
  repeats(text: string): boolean {
    const said = normalized(text);
    return this.ownTexts.some((own) => similarity(own, said) >= NEAR_IDENTICAL);
  }

  /** A member is typing, or people wrote within `settleMs`: an unasked message waits. */
  busy(settings: ParticipationSettings, now: number): boolean {
    for (const until of this.typingUntil.values()) if (until > now) return true;
    const lastPerson = this.peopleAt.at(-1);
    return lastPerson !== undefined && now - lastPerson < settings.settleMs;
  }
}

/** A member's answers to the bot in a row: how many came quickly, and how many of those repeated the one before. */
interface AnswerStreak {
  quick: number;
  repeated: number;
  text: string;
}

/** Lower case, without spaces and punctuation: "好的！" and "好的" are the same words. */
function normalized(text: string): string {
  return text.toLowerCase().replace(/[\s\p{P}\p{S}]/gu, "");
}

/** Dice similarity of the two texts' character pairs (a one-character text is its own pair). */
function similarity(a: string, b: string): number {
  if (a === b) return 1;
  const pairsA = pairs(a);
  const pairsB = pairs(b);
  if (pairsA.length === 0 || pairsB.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const pair of pairsA) counts.set(pair, (counts.get(pair) ?? 0) + 1);
  let shared = 0;
  for (const pair of pairsB) {
    const left = counts.get(pair) ?? 0;
    if (left > 0) {
      shared++;
      counts.set(pair, left - 1);
    }
  }
  return (2 * shared) / (pairsA.length + pairsB.length);
}

function pairs(text: string): string[] {
  const chars = [...text];
  if (chars.length === 1) return chars;
  return chars.slice(1).map((char, index) => chars[index]! + char);
}
