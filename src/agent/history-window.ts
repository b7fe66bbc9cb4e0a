import { boundedHistory } from "./transcript.ts";

/** `chat.history`: how much earlier chat the models read, and how the window moves. */
export interface HistoryBounds {
  maxMessages: number;
  maxChars: number;
  /** Share of the window dropped at once when it is full; 0 drops only what no longer fits. */
  dropFraction: number;
}

/** One history message: its line as the models read it and a key that names it across turns. */
export interface HistoryEntry {
  key: string;
  line: string;
}

/**
 * Where each session's history window starts. The window keeps its oldest message while it
 * grows and drops the oldest part at once when it overflows, so consecutive prompts of a
 * session share their whole history as the provider's cached prefix until such a step (a
 * window sliding by one message per turn changes the prompt right where history begins).
 * Held by the turn runner; after a restart each session starts with a full window.
 */
export class HistoryWindows {
  /** Session id → key of the oldest message its last window showed; least recently used first. */
  private readonly starts = new Map<string, string>();

  /** `sessions` bounds the memory: a session forgotten meanwhile starts with a full window. */
  constructor(private readonly sessions = 1_000) {}

  /** The lines to show, oldest first; `entries` are the session's newest messages, oldest first. */
  select(sessionId: string, entries: HistoryEntry[], bounds: HistoryBounds): string[] {
    const previous = this.starts.get(sessionId);
    const shown = windowFrom(entries, previous, bounds);
    // Map order is insertion order: re-inserting marks the session most recently used.
    this.starts.delete(sessionId);
    const first = shown[0];
    if (first !== undefined) this.starts.set(sessionId, first.key);
    const oldest = this.starts.keys().next().value;
    if (this.starts.size > this.sessions && oldest !== undefined) this.starts.delete(oldest);
    return shown.map((entry) => entry.line);
  }
}

/**
 * The window after `previousStart`: everything from it while that fits the bounds; else (or
 * when that message is no longer among `entries`) the newest entries that fit bounds shrunk
 * by `dropFraction`. A session without a previous window gets the newest entries that fit.
 */
export function windowFrom(
  entries: HistoryEntry[],
  previousStart: string | undefined,
  bounds: HistoryBounds,
): HistoryEntry[] {
  if (previousStart === undefined) return newestFitting(entries, bounds.maxMessages, bounds.maxChars);
  const start = entries.findIndex((entry) => entry.key === previousStart);
  if (start !== -1) {
    const grown = entries.slice(start);
    if (newestFitting(grown, bounds.maxMessages, bounds.maxChars).length === grown.length) return grown;
  }
  const keep = 1 - bounds.dropFraction;
  return newestFitting(entries, Math.floor(bounds.maxMessages * keep), Math.floor(bounds.maxChars * keep));
}

function newestFitting(entries: HistoryEntry[], maxMessages: number, maxChars: number): HistoryEntry[] {
  const kept = boundedHistory(
    entries.map((entry) => entry.line),
    maxMessages,
    maxChars,
  ).length;
  return kept === 0 ? [] : entries.slice(-kept);
}
