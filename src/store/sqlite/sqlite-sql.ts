import type { Database, Statement as Prepared } from "better-sqlite3";
import type { SqlDatabase, Statement } from "../sql/sql-database.ts";

/**
 * The SQLite database as the backend-neutral stores use it: each statement text is prepared
 * once. The driver is synchronous, so every Promise is settled when it is returned.
 */
export class SqliteSql implements SqlDatabase {
  readonly codePointOrder = "";
  readonly #db: Database;
  readonly #prepared = new Map<string, Prepared>();

  constructor(db: Database) {
    this.#db = db;
  }

  async all<R>(sql: string, params: readonly unknown[] = []): Promise<R[]> {
    return this.#statement(sql).all(...params) as R[];
  }

  async get<R>(sql: string, params: readonly unknown[] = []): Promise<R | undefined> {
    return this.#statement(sql).get(...params) as R | undefined;
  }

  async run(sql: string, params: readonly unknown[] = []): Promise<number> {
    return this.runNow({ sql, params });
  }

  /** Runs one writing statement within the call; returns how many rows it changed. */
  runNow(statement: Statement): number {
    return this.#statement(statement.sql).run(...statement.params).changes;
  }

  /**
   * A function writing each row's statements (`toStatements`) in one transaction, within the
   * call: inside the write tick's transaction it is a savepoint that fails whole.
   */
  batch<T>(toStatements: (row: T) => readonly Statement[]): (rows: readonly T[]) => void {
    return this.#db.transaction((rows: readonly T[]) => {
      for (const row of rows) for (const statement of toStatements(row)) this.runNow(statement);
    });
  }

  #statement(sql: string): Prepared {
    let statement = this.#prepared.get(sql);
    if (statement === undefined) {
      statement = this.#db.prepare(sql);
      this.#prepared.set(sql, statement);
    }
    return statement;
  }
}
