import type { Static } from "@sinclair/typebox";
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
    timeoutMs: milliseconds("Limit for describing one picture, fetch and model call together", 20_000),
  },
);

/** `media.vision` of the config. */
export type VisionSettings = Static<typeof visionSchema>;
