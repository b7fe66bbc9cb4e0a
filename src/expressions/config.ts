import { type Static, Type } from "@sinclair/typebox";
import { count, group } from "../schema/fields.ts";

export const expressionsSchema = group(
  "Each group's way of talking (its expressions, in-jokes, turns of phrase), learned in the background from its history and shown to the planner and the replyer in that group.",
  {
    enabled: Type.Boolean({
      default: true,
      description:
        "Whether groups' expressions are learned (with llm.models.expressions, else the replyer's models) and shown in prompts; off, nothing is learned or shown (what is stored stays).",
    }),
    learnEvery: count("Members' messages in a group between two learning passes", 100),
    maxMessages: count("Most recent messages one learning pass reads", 200, 10),
    maxLearnCallsPerDay: count(
      "Most learning passes per group per day (chat.timezone); 0 learns nothing",
      2,
      0,
    ),
    maxEntries: count("Most expressions kept (and shown) per group", 12),
  },
);

/** `chat.expressions` of the config. */
export type ExpressionSettings = Static<typeof expressionsSchema>;
