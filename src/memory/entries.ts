import type { MemoryEntry, MemoryHit } from "./types.ts";

export function unique<T>(values: T[]): T[] {
  return [...new Set(values)];
}

/** Entries in order of first appearance, each once. */
export function uniqueEntries(hits: MemoryHit[]): MemoryEntry[] {
  const seen = new Set<number>();
  const entries: MemoryEntry[] = [];
  for (const { entry } of hits) {
    if (seen.has(entry.id)) continue;
    seen.add(entry.id);
    entries.push(entry);
  }
  return entries;
}
