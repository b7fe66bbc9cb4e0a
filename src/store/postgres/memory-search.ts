import { CANDIDATES, type Candidate } from "../memory-ranking.ts";
import type { MemorySearch } from "../memory-types.ts";
import type { PgQuery } from "./pg-query.ts";

/**
 * How memories are indexed and searched on PostgreSQL, apart from storing them
 * (memory-store.ts) and ranking them (../memory-ranking.ts). Each memory keeps its terms in a
 * `text[]` with a GIN index; BM25 is computed in SQL from the statistics in
 * `memory_term_counts` and `memory_index_size`, which `reindex` keeps in step.
 */

/** BM25's usual constants, as SQLite's FTS5 uses them: term-frequency saturation and length normalisation. */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;

/**
 * Which memories a search may return: about one of the subjects (when given) and about none of
 * the excluded subject prefixes (an empty prefix excludes everything, as in SQLite). Each
 * combination is its own statement, with a parameter only for what it filters on: a prepared
 * statement's generic plan is then as good as one made for its values (a "$1 IS NULL OR …"
 * would be planned anew on every call — most of the search's cost on a small table).
 */
interface About {
  /** The WHERE conditions on `m`, numbering its parameters from `$first`. */
  sql: (first: number) => string;
  params: unknown[];
  /** Names the combination, for the statement's name. */
  name: string;
}

function about(search: MemorySearch): About {
  const subjects = search.subjects;
  const excluded = search.excludeSubjectPrefix ?? [];
  const conditions: Array<(n: number) => string> = [];
  const params: unknown[] = [];
  if (subjects !== undefined) {
    conditions.push((n) => `m.subject = ANY($${n}::text[])`);
    params.push(subjects);
  }
  if (excluded.length > 0) {
    conditions.push(
      (n) =>
        `NOT EXISTS (SELECT 1 FROM unnest($${n}::text[]) AS e(prefix) WHERE starts_with(m.subject, e.prefix))`,
    );
    params.push(excluded);
  }
  return {
    sql: (first) =>
      conditions.length === 0 ? "TRUE" : conditions.map((condition, i) => condition(first + i)).join(" AND "),
    params,
    name: `${subjects === undefined ? "" : "s"}${excluded.length > 0 ? "x" : ""}`,
  };
}

/**
 * The CANDIDATES memories sharing a term with the query (`$1`), most relevant first by BM25:
 * for each query term a memory holds, idf × tf·(k1+1) / (tf + k1·(1 − b + b·length/average)),
 * idf = ln(1 + (N − n + 0.5)/(n + 0.5)) over every memory (N memories, n holding the term).
 * Term frequencies are counted by array_positions (in C) against the few query terms known to
 * the index, materialised once: at 100,000 memories a search over everyone's takes about 30 ms.
 */
const matching = (where: string) => `
  WITH size AS MATERIALIZED (
    SELECT documents, GREATEST(terms::float8 / GREATEST(documents, 1), 1) AS average_length
    FROM memory_index_size
  ), query_terms AS MATERIALIZED (
    SELECT q.term, ln(1 + (size.documents - c.documents + 0.5) / (c.documents + 0.5))::float8 AS idf
    FROM unnest($1::text[]) AS q(term) CROSS JOIN size
    JOIN memory_term_counts c ON c.term = q.term
  )
  SELECT m.id, m.confirmations, m.confirmed_at, (
      SELECT sum(q.idf * hits.n * ${BM25_K1 + 1}
        / (hits.n + ${BM25_K1} * (${1 - BM25_B} + ${BM25_B} * cardinality(m.terms) / size.average_length)))
      FROM query_terms q, LATERAL (SELECT cardinality(array_positions(m.terms, q.term)) AS n) hits
      WHERE hits.n > 0
    )::float8 AS relevance
  FROM memories m CROSS JOIN size
  WHERE m.terms && $1::text[] AND ${where}
  ORDER BY relevance DESC, m.id DESC LIMIT ${CANDIDATES}`;

/** Without a query: the CANDIDATES most recently confirmed. */
const recent = (where: string) => `SELECT m.id, m.confirmations, m.confirmed_at FROM memories m
  WHERE ${where} ORDER BY m.confirmed_at DESC, m.id DESC LIMIT ${CANDIDATES}`;

/** The candidates of a search for `queryTerms` (undefined: no query), before ranking. */
export function findCandidates(
  db: PgQuery,
  search: MemorySearch,
  queryTerms: string[] | undefined,
): Promise<Candidate[]> {
  const filter = about(search);
  return queryTerms === undefined
    ? db.query<Candidate>(recent(filter.sql(1)), filter.params, `memory-recent-${filter.name}`)
    : db.query<Candidate>(
        matching(filter.sql(2)),
        [queryTerms, ...filter.params],
        `memory-matching-${filter.name}`,
      );
}

/**
 * Keeps the BM25 statistics in step with memories removed and added (each given by its terms),
 * inside the transaction that changes them, as its last step. It locks the `memory_index_size`
 * row before any term row, so concurrent writers (other instances) queue there and never lock
 * term rows in opposite orders.
 */
export async function reindex(tx: PgQuery, removed: string[][], added: string[][]): Promise<void> {
  const documentsPerTerm = new Map<string, number>();
  let terms = 0;
  const count = (memoryTerms: string[], sign: 1 | -1) => {
    terms += sign * memoryTerms.length;
    for (const term of new Set(memoryTerms)) {
      documentsPerTerm.set(term, (documentsPerTerm.get(term) ?? 0) + sign);
    }
  };
  for (const memoryTerms of removed) count(memoryTerms, -1);
  for (const memoryTerms of added) count(memoryTerms, 1);
  await tx.query("UPDATE memory_index_size SET documents = documents + $1, terms = terms + $2", [
    added.length - removed.length,
    terms,
  ]);
  const changed = [...documentsPerTerm].filter(([, delta]) => delta !== 0);
  if (changed.length === 0) return;
  const changedTerms = changed.map(([term]) => term);
  await tx.query(
    `INSERT INTO memory_term_counts (term, documents)
     SELECT * FROM unnest($1::text[], $2::bigint[]) ORDER BY 1
     ON CONFLICT (term) DO UPDATE SET documents = memory_term_counts.documents + excluded.documents`,
    [changedTerms, changed.map(([, delta]) => delta)],
  );
  await tx.query("DELETE FROM memory_term_counts WHERE term = ANY($1::text[]) AND documents <= 0", [
    changedTerms,
  ]);
}
