/**
 * How memory search hits are ranked, whatever the database: each backend finds the CANDIDATES
 * most relevant to the query (most recently confirmed without one), then this formula orders them.
 */

/** Candidates taken from the index (most relevant first) before ranking by recency and confirmations. */
export const CANDIDATES = 200;
/** A confirmation's weight halves every 30 days. */
const RECENCY_HALF_LIFE_MS = 30 * 24 * 60 * 60 * 1000;

/** What ranking needs of a candidate; full rows are read only for the hits returned. */
export interface Candidate {
  id: number;
  confirmations: number;
  confirmed_at: number;
  /** BM25 relevance to the query, higher is better; absent without a query. */
  relevance?: number;
}

/**
 * A candidate's rank: relevance × recency × (1 + log2 confirmations); comparable within one
 * search, higher is better.
 */
export function scoreOf(candidate: Candidate, now: number): number {
  const relevance = candidate.relevance ?? 1;
  const age = Math.max(0, now - candidate.confirmed_at);
  const recency = 0.5 ** (age / RECENCY_HALF_LIFE_MS);
  return relevance * recency * (1 + Math.log2(Math.max(1, candidate.confirmations)));
}

/** Best score first; among equal scores the newer memory (higher id) first. */
export function rankCandidates(
  candidates: readonly Candidate[],
  now: number,
  limit: number,
): { id: number; score: number }[] {
  return candidates
    .map((candidate) => ({ id: candidate.id, score: scoreOf(candidate, now) }))
    .sort((a, b) => b.score - a.score || b.id - a.id)
    .slice(0, limit);
}
