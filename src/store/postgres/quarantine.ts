import type { Logger } from "../../log/logger.ts";
import { reportQuarantined, rowText } from "../sqlite/quarantine.ts";
import { errorText } from "../sqlite/storage-errors.ts";
import type { PgQuery } from "./pg-query.ts";

/**
 * Rows the database refused for what they are (not for its state), kept in the `quarantine`
 * table for inspection instead of being lost with, or taking down, the rows written beside them.
 */
export class PgQuarantine {
  constructor(private readonly logger: Logger) {}

  /** Stores the row as text with the error, in the caller's transaction. Throws only when the insert fails. */
  async keep(tx: PgQuery, store: string, row: unknown, error: unknown): Promise<void> {
    const text = rowText(row);
    const reason = errorText(error);
    const [inserted] = await tx.query<{ id: number }>(
      "INSERT INTO quarantine (time, store, error, row) VALUES ($1, $2, $3, $4) RETURNING id",
      [Date.now(), store, reason, text],
    );
    reportQuarantined(this.logger, { store, id: inserted?.id ?? 0, reason, text });
  }
}
