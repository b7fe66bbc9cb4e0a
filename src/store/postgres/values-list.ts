import type { PgQuery } from "./pg-query.ts";

/** PostgreSQL takes at most 65535 parameters in one statement. */
const MAX_PARAMETERS = 65_535;
/** Rows per statement at most, so one statement's text stays small. */
const MAX_ROWS = 1_000;

/**
 * Splits rows into groups that each fit one multi-row statement of `columns` parameters per
 * row: many rows in one round trip, within the server's parameter limit.
 */
export function statementChunks<T>(rows: readonly T[], columns: number): T[][] {
  const size = rowsPerStatement(columns);
  const chunks: T[][] = [];
  for (let start = 0; start < rows.length; start += size) chunks.push(rows.slice(start, start + size));
  return chunks;
}

/** How many rows of `columns` parameters one statement of `statementChunks` takes. */
export function rowsPerStatement(columns: number): number {
  return Math.max(1, Math.min(MAX_ROWS, Math.floor(MAX_PARAMETERS / columns)));
}

/**
 * `($1, $2), ($3, $4), …` for `rows` rows of `casts.length` parameters, each parameter followed
 * by its cast (`"::bigint"`, or `""` for none): VALUES used as a table needs its types spelled.
 */
export function valuesList(rows: number, casts: readonly string[]): string {
  const tuples: string[] = [];
  for (let row = 0; row < rows; row++) {
    const first = row * casts.length + 1;
    tuples.push(`(${casts.map((cast, column) => `$${first + column}${cast}`).join(", ")})`);
  }
  return tuples.join(", ");
}

/** `n` parameters without casts, for an INSERT's VALUES. */
export function uncast(n: number): string[] {
  return Array.from({ length: n }, () => "");
}

/**
 * Inserts `rows` into `table` (`columns` comma-separated, each row's `values` in that order),
 * one multi-row statement per chunk; `suffix` follows the VALUES (an ON CONFLICT clause).
 */
export async function insertRows<T>(
  tx: PgQuery,
  table: string,
  columns: string,
  rows: readonly T[],
  values: (row: T) => unknown[],
  suffix = "",
): Promise<void> {
  const count = columns.split(",").length;
  for (const chunk of statementChunks(rows, count)) {
    await tx.query(
      `INSERT INTO ${table} (${columns}) VALUES ${valuesList(chunk.length, uncast(count))} ${suffix}`,
      chunk.flatMap(values),
    );
  }
}
