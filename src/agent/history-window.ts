import { boundedHistory } from "./transcript.ts";

/** `chat.history`: how much earlier chat the models read, and how the window moves. */
export interface HistoryBounds {
  /** The window of a session's first prompt; the base of the bounds below. */
  maxMessages: number;
  maxChars: number;
  /** Share of `maxMessages`/`maxChars` dropped at a step: the window then holds the rest of them. */
  dropFraction: number;
  /** The window grows to `growth` × `maxMessages`/`maxChars` before it steps; 1 keeps it within them. */
  growth: number;
}

/** The most stored messages a window can hold: what a turn reads to choose it from. */
export function mostHistoryMessages(bounds: HistoryBounds): number {
  return Math.floor(bounds.maxMessages * bounds.growth);
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
 * A step keeps only the tools and the system prompt, so the window grows well beyond where it
 * steps back to: a chat adding several messages a turn then steps once in many turns.
 * Held by the turn runner; after a restart each session starts with a full window.
 */
export class HistoryWindows {
  /** Session id → key of the oldest message its last window showed; least recently used first. */
  private readonly starts = new Map<string, string>();

  /** `sessions` bounds the memory: a session forgotten meanwhile starts with a full window. */
  constructor(private readonly sessions = 1_000) {}

  /**
   * The messages this session's next window is chosen among (its lines must render as in the
   * last prompt: their pictures described, their mentions named): from the last window's start
   * on, else the newest `maxMessages`. `messages` are the session's newest, oldest first.
   */
  candidates<T>(sessionId: string, messages: T[], keyOf: (message: T) => string, bounds: HistoryBounds): T[] {
    const previous = this.starts.get(sessionId);
    const start = previous === undefined ? -1 : messages.findIndex((message) => keyOf(message) === previous);
    return start === -1 ? messages.slice(-bounds.maxMessages) : messages.slice(start);
  }

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
 * The window after `previousStart`: everything from it while that fits the bounds grown by
 * `growth`; else (or when that message is no longer among `entries`) the newest entries that
 * fit the bounds shrunk by `dropFraction`. A session without a previous window gets the newest
 * entries that fit the bounds.
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
    const fitting = newestFitting(
      grown,
      mostHistoryMessages(bounds),
      Math.floor(bounds.maxChars * bounds.growth),
    );
    if (fitting.length === grown.length) return grown;
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
