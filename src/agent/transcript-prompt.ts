import type { ZonedClock } from "../context/clock-text.ts";
import type { LlmMessage } from "../llm/types.ts";
import { identityText, nowText, type PromptChat, type PromptIdentity, placeText } from "./prompt.ts";
import { boundedHistory } from "./transcript.ts";

/** A digest or summary turn: the model reads a stretch of chat and writes one message. */
export interface TranscriptPromptInput {
  identity: PromptIdentity;
  chat: PromptChat;
  /** The chat to read, oldest first, already formatted and bounded. */
  transcriptLines: string[];
  now: number;
  clock: ZonedClock;
}

/** A digest answered with this (alone) sends nothing. */
export const SKIP_ANSWER = "SKIP";

const DIGEST_RULES = [
  "你在旁听聊天：下面是最近一段没有人找你的聊天记录。",
  "- 如果你有自然、有用的话想说（接上话题、回答没人回答的问题、纠正明显的错误），直接写出要发的一条消息。",
  `- 否则只回复 ${SKIP_ANSWER}，不要写别的。大多数时候都应该回复 ${SKIP_ANSWER}。`,
  "- 只输出消息本身：不要加引号、名字前缀、时间或解释。",
].join("\n");

const SUMMARY_RULES = [
  "有人请你总结最近的聊天记录。",
  "- 按话题简要列出要点和结论，提到关键的人说了什么；没有的内容不要编造。",
  "- 只输出总结本身，口语、简洁，适合直接发到聊天里。",
].join("\n");

export function digestMessages(input: TranscriptPromptInput): LlmMessage[] {
  return [
    { role: "system", content: `${identityText(input.identity)}\n\n${DIGEST_RULES}` },
    { role: "user", content: transcriptText(input, `请写出要发的消息，或只回复 ${SKIP_ANSWER}。`) },
  ];
}

export function summaryMessages(input: TranscriptPromptInput, requester: string): LlmMessage[] {
  return [
    { role: "system", content: `${identityText(input.identity)}\n\n${SUMMARY_RULES}` },
    { role: "user", content: transcriptText(input, `${requester} 请你总结以上聊天记录。`) },
  ];
}

/**
 * Whether a digest answer means "nothing worth saying": `SKIP` in any case, also when a
 * model dresses it up as `**SKIP**`, `SKIP。` or `- skip`.
 */
export function isSkipAnswer(text: string): boolean {
  const bare = text.replace(/^[\s*#>\-_`"'“「【(（]+|[\s*_`"'”」】)）.。!！]+$/gu, "");
  return bare.toUpperCase() === SKIP_ANSWER;
}

/**
 * The newest lines that fit in `maxChars`, oldest first. A newest line longer than the whole
 * budget is cut rather than leaving the model nothing to read.
 */
export function boundedTranscript(lines: string[], maxChars: number): string[] {
  const kept = boundedHistory(lines, lines.length, maxChars);
  const newest = lines.at(-1);
  return kept.length === 0 && newest !== undefined ? [newest.slice(0, maxChars)] : kept;
}

function transcriptText(input: TranscriptPromptInput, ending: string): string {
  const place = placeText(input.chat);
  const transcript = input.transcriptLines.length > 0 ? input.transcriptLines.join("\n") : "（没有消息）";
  return [
    `## 聊天记录（${place}，共 ${input.transcriptLines.length} 条）`,
    transcript,
    "",
    nowText(input.now, input.clock),
    ending,
  ].join("\n");
}
