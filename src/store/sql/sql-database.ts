/**
 * What the stores whose SQL is the same on SQLite and PostgreSQL need of their database. Their
 * statements use `?` placeholders, one per parameter in order (PostgreSQL's `$n` are made from
 * them once per statement text); each backend keeps every statement prepared.
 *
 * There is no transaction here: SQLite's driver is synchronous and its connection shared, so a
 * transaction spanning awaits would take in whatever other code ran meanwhile. Writes that must
 * commit together go through the backend's write tick (RowQueue) or its own turn start.
 */

/** One statement and its parameters. */
export interface Statement {
  sql: string;
  params: readonly unknown[];
}

export interface SqlDatabase {
  /** Every row the statement returns. */
  all<R>(sql: string, params?: readonly unknown[]): Promise<R[]>;
  /** The statement's first row, if it returns any. */
  get<R>(sql: string, params?: readonly unknown[]): Promise<R | undefined>;
  /** Runs a statement that writes; resolves with how many rows it changed. */
  run(sql: string, params?: readonly unknown[]): Promise<number>;
  /**
   * What follows a text column in ORDER BY so that it sorts by code point, as SQLite always
   * does: PostgreSQL otherwise sorts by the database's collation, which differs between servers.
   */
  readonly codePointOrder: string;
}

/**
 * A store's queue of rows that its backend commits in one batch per event-loop turn (the write
 * tick); a read flushes it first, so it sees every row pushed before it.
 */
export interface RowQueue<T> {
  push(row: T): void;
  /** Commits what is queued, unless the database cannot be written now (then it stays spooled). */
  flush(): void | Promise<void>;
  /** Commits what is queued and refuses later pushes. */
  close(): void | Promise<void>;
}

/** `?, ?, …`: one placeholder for each of `columns` (comma-separated), for an INSERT's VALUES. */
export function placeholders(columns: string): string {
  return columns
    .split(",")
    .map(() => "?")
    .join(", ");
}
