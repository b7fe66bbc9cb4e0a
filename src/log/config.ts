import { Type } from "@sinclair/typebox";
import { group, stringEnum } from "../schema/fields.ts";

export const logSchema = group("Logging.", {
  level: stringEnum(["fatal", "error", "warn", "info", "debug", "trace", "silent"], {
    default: "info",
    description: "Lowest level written.",
  }),
  messageText: Type.Boolean({
    default: false,
    description:
      "Write the first 80 characters of each message received into the log (info). Off: its ids, length and segment kinds only.",
  }),
});
