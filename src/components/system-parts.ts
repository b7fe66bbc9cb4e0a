import type { Disposer } from "./types.ts";

interface Entry {
  sessionPrefix: string;
  parts: Record<string, string>;
}

/**
 * System prompt parts a channel declares for its own sessions (a stdio plugin's
 * `channel_prompt`): every part of the sessions a prefix covers, ordered by key.
 */
export class SystemPartsRegistry {
  private readonly entries = new Set<Entry>();

  /** Adds parts for the sessions whose id starts with `sessionPrefix`; returns their disposer. */
  add(sessionPrefix: string, parts: Record<string, string>): Disposer {
    const entry: Entry = { sessionPrefix, parts: { ...parts } };
    this.entries.add(entry);
    return () => this.entries.delete(entry);
  }

  /** The texts for one session, ordered by key. */
  forSession(sessionId: string): string[] {
    const found: Array<[string, string]> = [];
    for (const entry of this.entries) {
      if (sessionId.startsWith(entry.sessionPrefix)) found.push(...Object.entries(entry.parts));
    }
    return found
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, text]) => text)
      .filter((text) => text.trim() !== "");
  }
}
