import { type Static, Type } from "@sinclair/typebox";
import { count, formattedString, group, milliseconds } from "../schema/fields.ts";

export const quoteSchema = group("Fetching quoted messages and merged forwards.", {
  enabled: Type.Boolean({ default: true, description: "Fetch the message a reply quotes." }),
  resolveForward: Type.Boolean({ default: true, description: "Expand merged forwards." }),
  maxDepth: count("Deepest nesting of forwards to expand", 2, 0),
  maxNodes: count("Most forwarded messages to expand", 20),
  maxChars: count("Most characters of quoted text", 4_000),
  timeoutMs: milliseconds("Limit for each fetch", 10_000),
});

export const timezoneSchema = formattedString("time-zone", {
  default: "",
  description:
    'IANA time zone of every time the models read (history, quote blocks, the current time), e.g. "Asia/Shanghai"; empty means the system\'s.',
});

/** `chat.quote` of the config. */
export type QuoteSettings = Static<typeof quoteSchema>;
