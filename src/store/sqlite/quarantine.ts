import { inspect } from "node:util";
import type { Database, Statement } from "better-sqlite3";
import type { Logger } from "../../log/logger.ts";
import { errorText } from "./storage-errors.ts";

/** The most of a quarantined row kept, in characters: enough to inspect, never a second outage. */
const MAX_ROW_CHARS = 64 * 1024;
/** Characters of the row shown in the log line. */
const LOG_PREVIEW_CHARS = 200;

/**
 * Rows the database refused for what they are (not for its state), kept in the `quarantine`
 * table for inspection instead of being lost with, or taking down, the rows written beside them.
 */
export class Quarantine {
  readonly #insert: Statement<[number, string, string, string]>;

  constructor(
    db: Database,
    private readonly logger: Logger,
  ) {
    this.#insert = db.prepare("INSERT INTO quarantine (time, store, error, row) VALUES (?, ?, ?, ?)");
  }

  /** Stores the row as text with the error. Throws only when the insert itself fails. */
  keep(store: string, row: unknown, error: unknown): void {
    const text = rowText(row);
    const reason = errorText(error);
    const id = Number(this.#insert.run(Date.now(), store, reason, text).lastInsertRowid);
    reportQuarantined(this.logger, { store, id, reason, text });
  }
}

/** The log line for a row kept in the quarantine table (both backends). */
export function reportQuarantined(
  logger: Logger,
  row: { store: string; id: number; reason: string; text: string },
): void {
  logger.error(
    { store: row.store, quarantineId: row.id, error: row.reason, row: row.text.slice(0, LOG_PREVIEW_CHARS) },
    `quarantined a ${row.store} row that could not be stored (see table quarantine)`,
  );
}

/** JSON when the row can be serialised; otherwise a depth-limited rendering (the row may be what broke JSON). */
export function rowText(row: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(row) ?? String(row);
  } catch {
    text = inspect(row, {
      depth: 6,
      maxArrayLength: 50,
      maxStringLength: 4096,
      breakLength: Number.POSITIVE_INFINITY,
    });
  }
  return text.length > MAX_ROW_CHARS ? `${text.slice(0, MAX_ROW_CHARS)}…(truncated)` : text;
}
