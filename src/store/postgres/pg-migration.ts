import type { SchemaMigration } from "../schema-migrations.ts";
import type { PgQuery } from "./pg-query.ts";

/** One schema change; `up` runs inside the migration's transaction. */
export type PgMigration = SchemaMigration<PgQuery, Promise<void>>;

/** What the migration runner needs of the database: transactions. */
export interface PgTransactions {
  transaction<T>(fn: (tx: PgQuery) => Promise<T>): Promise<T>;
}

/** A migration that is one statement. */
export function oneStatement(version: number, name: string, statement: string): PgMigration {
  return {
    version,
    name,
    async up(tx) {
      await tx.query(statement);
    },
  };
}
