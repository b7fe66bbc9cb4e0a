import { count, group } from "../schema/fields.ts";

export const monitorSchema = group("The monitor: what each turn did, kept for the console's timeline.", {
  maxEvents: count("Most monitor events kept; the oldest are deleted beyond this", 10_000),
  maxAgeHours: count("Monitor events older than this many hours are deleted", 72),
});
