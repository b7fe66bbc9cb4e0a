import type { Static } from "@sinclair/typebox";
import { count, group, milliseconds } from "../schema/fields.ts";

export const speechSchema = group(
  "Transcribing voice messages with the speech models (llm.models.speech); without any, voice messages stay [语音].",
  {
    maxPerTurn: count(
      "Voice messages transcribed with a model call per turn; the rest (beyond cached ones) stay placeholders",
      3,
      0,
    ),
    maxPerDay: count(
      "Voice messages this bot process tries to transcribe per day, each counted before it is fetched whether or not it can be read (in memory, per local calendar day)",
      200,
      0,
    ),
    maxSeconds: count("Longest voice message transcribed, in seconds; a longer one stays a placeholder", 120),
    timeoutMs: milliseconds(
      "Limit for transcribing one voice message, fetch, conversion and model call together",
      30_000,
    ),
  },
);

/** `media.speech` of the config. */
export type SpeechSettings = Static<typeof speechSchema>;
