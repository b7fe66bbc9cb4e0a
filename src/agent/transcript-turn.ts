import type { LlmRequest, LlmResult } from "../llm/types.ts";
import type { Monitor } from "../monitor/monitor.ts";
import {
  boundedTranscript,
  digestMessages,
  isSkipAnswer,
  summaryMessages,
  type TranscriptPromptInput,
} from "./transcript-prompt.ts";
import type { TurnContext } from "./turn-context.ts";
import type { TurnOutcome } from "./turn-outcome.ts";

/** Said in the chat when `/summary` finds nothing to read. */
const NOTHING_TO_SUMMARISE = "最近没有可以总结的聊天记录。";

export interface TranscriptTurnDeps {
  llm: { generate(request: LlmRequest): Promise<LlmResult> };
  monitor: Monitor;
}

/**
 * A digest or summary turn: one model call over the transcript, bounded by
 * `maxTranscriptChars`; the answer is sent, except a digest's `SKIP`.
 */
export async function readTranscript(turn: TurnContext, deps: TranscriptTurnDeps): Promise<TurnOutcome> {
  const { batch, settings } = turn;
  const kind = batch.kind === "digest" ? "digest" : "summary";
  const { task, maxTranscriptChars } = settings[kind];
  if (kind === "summary" && batch.messages.length === 0) {
    await turn.replies.sendText(turn.origin(), [NOTHING_TO_SUMMARISE]);
    return { status: "replied", reason: "summary: nothing to summarise" };
  }
  const lines = batch.messages.map((message) => turn.line(message));
  const input: TranscriptPromptInput = {
    prompts: settings.prompts,
    identity: settings.identity,
    chat: turn.chat(),
    transcriptLines: boundedTranscript(lines, maxTranscriptChars),
    now: Date.now(),
    clock: settings.clock,
  };
  const requester = batch.requestedBy;
  const result = await deps.llm.generate({
    task,
    messages:
      kind === "digest"
        ? digestMessages(input)
        : summaryMessages(input, requester && `${requester.senderName}(${requester.userId})`),
    signal: turn.signal,
    replyId: turn.replyId,
    sessionId: batch.sessionId,
  });
  turn.recordCall(result, []);
  deps.monitor.emit({
    type: "transcript.read",
    replyId: turn.replyId,
    sessionId: batch.sessionId,
    data: {
      kind,
      lines: input.transcriptLines.length,
      model: `${result.provider}/${result.model}`,
      text: result.text,
      usage: result.usage,
      latencyMs: result.latencyMs,
    },
  });
  if (kind === "digest" && isSkipAnswer(result.text)) return { status: "silent", reason: "digest: SKIP" };
  const chunks = turn.replies.split(result.text);
  if (chunks.length === 0) return { status: "silent", reason: `${kind}: the model wrote nothing` };
  await turn.replies.sendText(turn.origin(), chunks);
  return { status: "replied", reason: `${kind} of ${input.transcriptLines.length} messages` };
}
