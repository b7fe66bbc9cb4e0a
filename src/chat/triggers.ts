import type { ChatMessage } from "../message/inbound.ts";
import { renderSegments } from "../message/render.ts";
import type { Segment } from "../message/segment.ts";
import { isSegment } from "../message/segment-guards.ts";
import type { TriggersConfig } from "./config.ts";

export type TriggerSettings = TriggersConfig & {
  /** The bot's name and aliases: saying them counts as a keyword. */
  names: string[];
};

export type TriggerReason = "mention" | "reply_to_self" | "keyword" | "private" | "poke";

/**
 * The platform id of the message this one replies to, when a reply to it could trigger the
 * bot: its author is looked up in the store before `detectTrigger` is asked.
 */
export function quotedMessageId(message: ChatMessage, settings: TriggerSettings): string | undefined {
  if (message.fromSelf || !settings.replyToSelf) return undefined;
  const reply = message.segments.find((s) => isSegment(s, "reply"));
  return isSegment(reply, "reply") ? String(reply.data.id) : undefined;
}

/**
 * Why a message should make the bot think about answering, or undefined when it should not.
 * `quotesOwnMessage`: the message it replies to (`quotedMessageId`) was sent by the bot.
 */
export function detectTrigger(
  message: ChatMessage,
  settings: TriggerSettings,
  quotesOwnMessage: boolean,
): TriggerReason | undefined {
  if (message.fromSelf) return undefined;
  // A poke is no message: only a poke of the bot itself triggers, and only while that is on.
  if (message.notice?.type === "poke") {
    return settings.poke && message.notice.targetId === message.selfId ? "poke" : undefined;
  }
  if (message.chatType === "private" && settings.privateAlways) return "private";
  if (settings.mention && message.segments.some((s) => isSegment(s, "at") && s.data.qq === message.selfId)) {
    return "mention";
  }
  if (quotesOwnMessage && quotedMessageId(message, settings) !== undefined) return "reply_to_self";
  // The name counts as a mention: with mentions off, only the keywords are words that trigger.
  const words = [...settings.keywords, ...(settings.mention ? settings.names : [])].filter(
    (w) => w.length > 0,
  );
  if (words.length > 0) {
    const text = renderSegments(message.segments).toLowerCase();
    if (words.some((word) => text.includes(word.toLowerCase()))) return "keyword";
  }
  return undefined;
}

const DELIMITER = /^[\s,，:：;；!！?？.。、]/u;

/**
 * Removes the mention that addressed the bot at the start of a message: a leading `at`
 * segment of the bot (or of everyone), and a typed `@name` only when a delimiter follows it,
 * so "@紬bot" is left alone but "@紬 你好" becomes "你好".
 */
export function stripLeadingMention(segments: Segment[], selfId: string, names: string[]): Segment[] {
  const rest = [...segments];
  // A reply segment (and the author's at QQ adds after it) stay where they are.
  let start = 0;
  while (start < rest.length && rest[start]!.type === "reply") start++;
  const first = rest[start];
  if (isSegment(first, "at") && (first.data.qq === selfId || first.data.qq === "all")) {
    rest.splice(start, 1);
    trimLeadingText(rest, start);
    return rest;
  }
  if (isSegment(first, "text")) {
    const text = first.data.text.trimStart();
    for (const name of names) {
      const mention = `@${name}`;
      if (name && text.startsWith(mention) && DELIMITER.test(text.slice(mention.length))) {
        const remaining = text.slice(mention.length).replace(/^[\s,，:：]+/u, "");
        rest.splice(start, 1, ...(remaining ? [{ type: "text" as const, data: { text: remaining } }] : []));
        return rest;
      }
    }
  }
  return rest;
}

function trimLeadingText(segments: Segment[], index: number): void {
  const next = segments[index];
  if (!isSegment(next, "text")) return;
  const text = next.data.text.replace(/^\s+/u, "");
  if (text) segments[index] = { type: "text", data: { ...next.data, text } };
  else segments.splice(index, 1);
}
