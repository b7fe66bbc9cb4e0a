import { type Static, Type } from "@sinclair/typebox";
import { count, group } from "../schema/fields.ts";

export const memorySchema = group(
  "Long-term memory: facts about people and groups, learned from the chat and recalled in later turns, across groups and restarts.",
  {
    enabled: Type.Boolean({
      default: true,
      description:
        "Whether the bot remembers: recalled memories in prompts, the planner's remember and recall tools, background learning (with llm.models.memory), /forget and /memory; off, nothing is recalled or learned (what is stored stays).",
    }),
    recallChars: count("Most characters of recalled memories shown in one prompt", 800, 0),
    recallLimit: count("Most memories shown in one prompt", 8, 0),
    learnEvery: count(
      "Stored messages of a chat between two background learning passes (each reads the new stretch with llm.models.memory)",
      30,
      1,
    ),
    maxLearnMessages: count("Most messages one learning pass reads", 80, 1),
    maxLearnCallsPerDay: count(
      "Most learning passes per chat per day (chat.timezone), so a busy group's learning costs a bounded amount",
      24,
      0,
    ),
    forgetCommands: Type.Array(Type.String({ minLength: 1 }), {
      default: ["/forget", "/忘记"],
      description:
        "Words of the command that forgets everything remembered about the sender (an admin may name a user id or a memory #id); empty turns it off.",
    }),
    showCommands: Type.Array(Type.String({ minLength: 1 }), {
      default: ["/memory", "/记忆"],
      description:
        'Words of the command that shows what is remembered about the sender (an admin may name a user id, or "group"); empty turns it off.',
    }),
  },
);

/** `memory` of the config. */
export type MemorySettings = Static<typeof memorySchema>;
