import { memoryEntryTerms, memoryMatchExpression } from "../memory-terms.ts";
import type { MemorySubject } from "../memory-types.ts";

/**
 * How memories are indexed and searched in SQLite's full-text index, apart from storing them
 * (memory-store.ts) and ranking them (../memory-ranking.ts).
 */

/** What the full-text index holds for a memory: its subject's name and content, as terms. */
export function termsOf(subjectName: string, content: string): string {
  return memoryEntryTerms(subjectName, content).join(" ");
}

/**
 * The full-text query: any term of `query`, about one of `subjects` (when given), about none
 * matching an excluded prefix (hex keeps prefixes: hex("group:") starts every group's token);
 * undefined when nothing can match.
 */
export function matchExpression(
  query: string,
  subjects: MemorySubject[] | undefined,
  excludedPrefixes: string[] = [],
): string | undefined {
  const terms = memoryMatchExpression(query);
  if (terms === undefined || excludedPrefixes.includes("")) return undefined;
  let match = `terms : (${terms})`;
  if (subjects !== undefined) {
    const about = subjects.map((subject) => `"${subjectToken(subject)}"`).join(" OR ");
    match = `subject : (${about}) AND ${match}`;
  }
  if (excludedPrefixes.length > 0) {
    const excluded = excludedPrefixes.map((prefix) => `"${subjectToken(prefix)}"*`).join(" OR ");
    match += ` NOT subject : (${excluded})`;
  }
  return match;
}

/** A subject as one token of the full-text index (hex: letters and digits only, whatever the id). */
export function subjectToken(subject: string): string {
  return Buffer.from(subject, "utf8").toString("hex");
}
