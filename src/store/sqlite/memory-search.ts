import { memoryMatchExpression, memoryTerms } from "../memory-terms.ts";
import type { MemorySubject } from "../memory-types.ts";

/**
 * How memories are indexed, searched and ranked in SQLite, apart from storing them
 * (memory-store.ts): the full-text terms and query, the ranking formula, vectors as bytes.
 */

/** Candidates taken from the index (best BM25 first) before ranking by recency and confirmations. */
export const CANDIDATES = 200;
/** A confirmation's weight halves every 30 days. */
const RECENCY_HALF_LIFE_MS = 30 * 24 * 60 * 60 * 1000;

/** What ranking needs of a candidate; full rows are read only for the hits returned. */
export interface Candidate {
  id: number;
  confirmations: number;
  confirmed_at: number;
  /** FTS5 bm25(): negative, lower is more relevant; absent without a query. */
  bm25?: number;
}

/** What the full-text index holds for a memory: its subject's name and content, as terms. */
export function termsOf(subjectName: string, content: string): string {
  return memoryTerms(`${subjectName} ${content}`).join(" ");
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

/**
 * A candidate's rank: relevance × recency × (1 + log2 confirmations); comparable within one
 * search, higher is better.
 */
export function scoreOf(candidate: Candidate, now: number): number {
  const relevance = candidate.bm25 === undefined ? 1 : -candidate.bm25;
  const age = Math.max(0, now - candidate.confirmed_at);
  const recency = 0.5 ** (age / RECENCY_HALF_LIFE_MS);
  return relevance * recency * (1 + Math.log2(Math.max(1, candidate.confirmations)));
}

/** Little-endian Float32, whatever the machine's byte order. */
export function encodeVector(vector: Float32Array): Buffer {
  const bytes = Buffer.alloc(vector.length * 4);
  for (let i = 0; i < vector.length; i++) bytes.writeFloatLE(vector[i] as number, i * 4);
  return bytes;
}

export function decodeVector(bytes: Buffer): Float32Array {
  const vector = new Float32Array(bytes.length / 4);
  for (let i = 0; i < vector.length; i++) vector[i] = bytes.readFloatLE(i * 4);
  return vector;
}
