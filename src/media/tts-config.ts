import { type Static, Type } from "@sinclair/typebox";
import { count, group, milliseconds } from "../schema/fields.ts";

export const ttsSchema = group(
  "Speaking with the text-to-speech models (llm.models.tts): the planner's send_voice, and its caps.",
  {
    maxChars: count(
      "Longest text spoken as one voice message, in characters; a longer reply is sent as text",
      300,
    ),
    maxPerTurn: count("Voice messages one turn may send; the next send_voice is refused", 1, 0),
    maxPerDay: count(
      "Voice messages this bot process may send per day in all chats (in memory, per local calendar day); the next send_voice is refused",
      100,
      0,
    ),
    userMaxPerDay: count(
      "Voice messages the turns of one member may send per day (in memory, per local calendar day); 0 means no per-member cap",
      20,
      0,
    ),
    timeoutMs: milliseconds("Limit for speaking one text, every model of the list together", 30_000),
    silk: Type.Boolean({
      default: false,
      description:
        "Encode the voice as SILK before it is sent to a OneBot implementation (for one that plays only SILK); NapCat and LLOneBot take the WAV or MP3 as it is, and the qq-official adapter encodes SILK itself.",
    }),
  },
);

/** `media.tts` of the config. */
export type TtsSettings = Static<typeof ttsSchema>;
