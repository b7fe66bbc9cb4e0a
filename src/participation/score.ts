import type { ChatRecord } from "./chat-record.ts";
import type { ParticipationSettings } from "./config.ts";

/** What the score of a message is made of, each part with its weight when present. */
const WEIGHTS = {
  /** The bot's name or an alias written without an @. */
  name: 0.5,
  /** A reply to a message of the bot's conversation. */
  chain: 0.4,
  /** One of `bot.interests`. */
  interest: 0.35,
  /** A question nobody has answered yet (this message is one). */
  question: 0.25,
  /** The chat is lively: scaled by people's messages in the last five minutes, full at ten. */
  activity: 0.2,
  /** The bot spoke in the last few minutes: the conversation it is in goes on. */
  recent: 0.15,
} as const;
const LIVELY_AT = 10;
const RECENT_MS = 3 * 60_000;

const QUESTION = /[?？]\s*$|(吗|呢|么|谁|什么|怎么|为什么|哪|几)[\s?？。!！~～]*$/u;

export interface ScoredMessage {
  text: string;
  /** The message it replies to, if any. */
  quotedId?: string;
}

export interface Score {
  value: number;
  /** The parts present, by name, for the timeline. */
  parts: string[];
}

/**
 * A cheap score (0..1) of how much an untriggered message invites the bot, from what is known
 * without a model: its name without an @, its interests, a question, a reply chain it is in,
 * how lively the chat is and how recently it spoke.
 */
export function scoreMessage(
  message: ScoredMessage,
  record: ChatRecord,
  context: { names: string[]; interests: string[]; now: number },
): Score {
  const text = message.text.toLowerCase();
  const mentions = (words: string[]) =>
    words.some((word) => word !== "" && text.includes(word.toLowerCase()));
  const present: Array<[keyof typeof WEIGHTS, number]> = [];
  if (mentions(context.names)) present.push(["name", 1]);
  if (message.quotedId !== undefined && record.inChain(message.quotedId)) present.push(["chain", 1]);
  if (mentions(context.interests)) present.push(["interest", 1]);
  if (QUESTION.test(message.text.trim())) present.push(["question", 1]);
  const activity = Math.min(record.activity(context.now) / LIVELY_AT, 1);
  if (activity > 0) present.push(["activity", activity]);
  if (record.msSinceBot(context.now) <= RECENT_MS) present.push(["recent", 1]);
  const value = present.reduce((sum, [part, share]) => sum + WEIGHTS[part] * share, 0);
  return { value: Math.min(Math.round(value * 100) / 100, 1), parts: present.map(([part]) => part) };
}

/** The score a message needs to be considered: 1 − talkValue (talkValue 1: every message). */
export function thresholdOf(talkValue: number): number {
  return Math.round((1 - talkValue) * 100) / 100;
}

/**
 * The talkValue in force at `localTime` ("HH:MM" in chat.timezone): the first schedule period
 * containing it, else `talkValue`. A period whose `to` is before its `from` runs over midnight.
 */
export function talkValueAt(settings: ParticipationSettings, localTime: string): number {
  const now = localTime.slice(0, 5);
  for (const period of settings.schedule) {
    const inside =
      period.from <= period.to
        ? now >= period.from && now < period.to
        : now >= period.from || now < period.to;
    if (inside) return period.talkValue;
  }
  return settings.talkValue;
}
