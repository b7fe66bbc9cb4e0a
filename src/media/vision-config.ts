import type { Static } from "@sinclair/typebox";
import { Type } from "@sinclair/typebox";
import { count, group, milliseconds } from "../schema/fields.ts";

export const visionSchema = group(
  "Describing pictures with the vision models (llm.models.vision); without any, pictures stay placeholders.",
  {
    maxPerTurn: count(
      "Pictures described with a model call per turn; the rest (beyond cached ones) stay placeholders",
      4,
      0,
    ),
    maxPerDay: count(
      "Pictures this bot process tries to describe per day, each counted before it is fetched whether or not it can be read (in memory, per local calendar day)",
      200,
      0,
    ),
    onDemand: Type.Boolean({
      default: true,
      description:
        "Describe only the pictures a turn points at (its triggering messages, the message just before each, what they quote); other pictures in the chat stay [图片] unless described before. Off: every new picture in the history window, within the caps.",
    }),
    timeoutMs: milliseconds("Limit for describing one picture, fetch and model call together", 20_000),
  },
);

/** `media.vision` of the config. */
export type VisionSettings = Static<typeof visionSchema>;
