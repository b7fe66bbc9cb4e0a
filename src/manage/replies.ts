import type { ChatMessage } from "../message/inbound.ts";

/** Longest answer read as a yes or no: anything longer is conversation, not a confirmation. */
const MAX_ANSWER_CHARS = 40;

/** Words a requester confirms a kick or an admin approves a join with (compared without case and punctuation). */
const YES = new Set([
  "确认",
  "确定",
  "确认踢出",
  "踢吧",
  "是的",
  "同意",
  "通过",
  "批准",
  "可以",
  "confirm",
  "yes",
  "y",
  "ok",
  "approve",
]);
/** Words that cancel a kick or reject a join request. */
const NO = new Set([
  "取消",
  "算了",
  "算了吧",
  "不用了",
  "不踢了",
  "不",
  "不要",
  "拒绝",
  "不同意",
  "cancel",
  "no",
  "n",
  "deny",
  "reject",
]);

/**
 * A message's own words as one short line: its text segments (not mentions, quotes or
 * pictures), trimmed, without trailing punctuation or emoji; undefined when it has none or is
 * too long to be an answer.
 */
export function plainWords(message: ChatMessage): string | undefined {
  const text = message.segments
    .map((segment) => (segment.type === "text" ? String(segment.data.text ?? "") : " "))
    .join("")
    .trim();
  if (text === "" || text.length > MAX_ANSWER_CHARS) return undefined;
  return text.replace(/[\s\p{P}\p{S}]+$/u, "").replace(/\s+/g, " ");
}

/** true for a yes, false for a no, undefined for anything else. */
export function decisionWord(words: string): boolean | undefined {
  const word = words.toLowerCase();
  if (YES.has(word)) return true;
  if (NO.has(word)) return false;
  return undefined;
}
