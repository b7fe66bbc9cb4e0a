import { group, stringEnum } from "../schema/fields.ts";

export const logSchema = group("Logging.", {
  level: stringEnum(["fatal", "error", "warn", "info", "debug", "trace", "silent"], {
    default: "info",
    description: "Lowest level written.",
  }),
});
