import type { PgQuery } from "./pg-query.ts";
import { isPgUnavailable } from "./storage-errors.ts";

/**
 * Runs `fn` inside a savepoint of the transaction: when it fails for its rows, only its writes
 * are undone and the transaction goes on (PostgreSQL otherwise refuses every later statement).
 * Savepoints nest: the innermost one of the name is the one rolled back to.
 */
export async function inSavepoint<T>(tx: PgQuery, fn: () => Promise<T>): Promise<T> {
  await tx.query("SAVEPOINT rows");
  let result: T;
  try {
    result = await fn();
  } catch (error) {
    // A lost connection has no transaction left to roll back into.
    if (!isPgUnavailable(error)) await tx.query("ROLLBACK TO SAVEPOINT rows");
    throw error;
  }
  await tx.query("RELEASE SAVEPOINT rows");
  return result;
}
