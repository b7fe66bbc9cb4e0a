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
/** Two texts at least this similar (character pairs, 0..1) are one message said twice. */
const NEAR_IDENTICAL = 0.8;

/** A hard rule that kept the bot from speaking unasked. */
export type GovernorRule =
  | "schedule"
  | "other bot"
  | "ping-pong guard"
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
  private readonly quickAnswers = new Map<string, number>();
  private readonly suspectUntil = new Map<string, number>();
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
   * bot's last message; at `pingPongRounds` the member is treated as a bot for an hour.
   * True when this message made them one.
   */
  watchQuickAnswer(userId: string, now: number, settings: ParticipationSettings): boolean {
    if (settings.pingPongMs === 0) return false;
    const quick = now - this.lastBotAt <= settings.pingPongMs;
    const streak = quick ? (this.quickAnswers.get(userId) ?? 0) + 1 : 0;
    this.quickAnswers.set(userId, streak);
    if (streak >= settings.pingPongRounds) {
      this.suspectUntil.set(userId, now + SUSPECT_FOR_MS);
      this.quickAnswers.delete(userId);
      return true;
    }
    return false;
  }

  isSuspect(userId: string, now: number): boolean {
    return (this.suspectUntil.get(userId) ?? 0) > now;
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
