import { type Static, Type } from "@sinclair/typebox";
import { count, group, milliseconds } from "../schema/fields.ts";

export const typingDelaySchema = group(
  "A pause before each message leaves, as if typed: its length over a typing speed, capped. Only the chat being answered waits.",
  {
    charsPerSecond: count("Typing speed in characters per second; 0 sends at once", 0, 0),
    maxMs: milliseconds("Longest pause before one message", 3_000, 0),
  },
);

export type TypingDelaySettings = Static<typeof typingDelaySchema>;

/** How long a message of `text` waits before it leaves: 0 when the delay is off. */
export function typingDelayMs(text: string, settings: TypingDelaySettings): number {
  if (settings.charsPerSecond === 0) return 0;
  const chars = [...text].length;
  return Math.min(settings.maxMs, Math.round((chars / settings.charsPerSecond) * 1000));
}
