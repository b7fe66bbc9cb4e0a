/**
 * Runs one statement and resolves with its rows: the pool, or one transaction's client. `name`:
 * prepare the statement under this name, so each connection parses and plans it once — for
 * fixed statements run on every turn (a name must always go with the same text).
 */
export interface PgQuery {
  query<R = Record<string, unknown>>(sql: string, params?: unknown[], name?: string): Promise<R[]>;
}
