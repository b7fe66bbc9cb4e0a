import type { ZonedClock } from "../context/clock-text.ts";
import type { LlmMessage } from "../llm/types.ts";
import { type PromptChat, placeText } from "../prompts/place-text.ts";
import type { PromptTemplates } from "../prompts/templates.ts";
import { identityText, nowText, type PromptIdentity } from "./prompt.ts";
import { boundedHistory } from "./transcript.ts";

/** A digest or summary turn: the model reads a stretch of chat and writes one message. */
export interface TranscriptPromptInput {
  prompts: PromptTemplates;
  identity: PromptIdentity;
  chat: PromptChat;
  /** The chat to read, oldest first, already formatted and bounded. */
  transcriptLines: string[];
  now: number;
  clock: ZonedClock;
}

/** A digest answered with this (alone) sends nothing. */
export const SKIP_ANSWER = "SKIP";

export function digestMessages(input: TranscriptPromptInput): LlmMessage[] {
  const { prompts } = input;
  const identity = identityText(prompts, input.identity);
  return [
    { role: "system", content: prompts.render("digest", { identity, skip: SKIP_ANSWER }) },
    {
      role: "user",
      content: prompts.render("digest_request", { transcript: transcriptText(input), skip: SKIP_ANSWER }),
    },
  ];
}

/** `requester` names who asked (`张三(10001)`); absent, the language's word for "someone". */
export function summaryMessages(input: TranscriptPromptInput, requester: string | undefined): LlmMessage[] {
  const { prompts } = input;
  return [
    {
      role: "system",
      content: prompts.render("summary", { identity: identityText(prompts, input.identity) }),
    },
    {
      role: "user",
      content: prompts.render("summary_request", {
        transcript: transcriptText(input),
        requester: requester ?? prompts.render("summary_requester_unknown"),
      }),
    },
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

function transcriptText(input: TranscriptPromptInput): string {
  const { prompts, transcriptLines } = input;
  return prompts.render("transcript", {
    place: placeText(prompts, input.chat),
    count: String(transcriptLines.length),
    messages: transcriptLines.length > 0 ? transcriptLines.join("\n") : prompts.render("transcript_empty"),
    now: nowText(prompts, input.now, input.clock),
  });
}
