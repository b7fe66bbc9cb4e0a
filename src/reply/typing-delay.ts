import type { Static } from "@sinclair/typebox";
import type { Segment } from "../message/segment.ts";
import { count, group, milliseconds } from "../schema/fields.ts";

export const typingDelaySchema = group(
  "A pause before each message leaves, as if typed: its length over a typing speed, capped. Only the chat being answered waits.",
  {
    charsPerSecond: count("Typing speed in characters per second; 0 sends at once", 0, 0),
    maxMs: milliseconds("Longest pause before one message", 3_000, 0),
  },
);

export type TypingDelaySettings = Static<typeof typingDelaySchema>;

/** How long a message waits before it leaves, from the length of its text: 0 when the delay is off. */
export function typingDelayMs(segments: readonly Segment[], settings: TypingDelaySettings): number {
  if (settings.charsPerSecond === 0) return 0;
  const text = segments
    .map((segment) => (segment.type === "text" ? String(segment.data.text ?? "") : ""))
    .join("");
  const chars = [...text].length;
  return Math.min(settings.maxMs, Math.round((chars / settings.charsPerSecond) * 1000));
}
