import type { SqlDatabase } from "../sql/sql-database.ts";
import type { PgDatabase } from "./database.ts";

/** A statement's PostgreSQL text and the name it is prepared under. */
export interface Translated {
  text: string;
  name: string;
}

/**
 * Every statement text met so far, translated once. Process-wide: a prepared statement's name
 * must always go with the same text, on every connection of every pool.
 */
const TRANSLATED = new Map<string, Translated>();

/**
 * A neutral statement as PostgreSQL runs it: `?` placeholders become `$1`, `$2`, … in order.
 * The neutral stores' statements hold no `?` in a string literal nor use PostgreSQL's `?`
 * operators, so every `?` is a placeholder.
 */
export function pgStatement(sql: string): Translated {
  let known = TRANSLATED.get(sql);
  if (known === undefined) {
    let n = 0;
    known = { text: sql.replaceAll("?", () => `$${++n}`), name: `neutral-${TRANSLATED.size + 1}` };
    TRANSLATED.set(sql, known);
  }
  return known;
}

/**
 * The PostgreSQL database as the backend-neutral stores use it. Each statement is prepared
 * under its name, so each connection parses and plans it once: they are fixed texts, run on
 * every turn.
 */
export class PgSql implements SqlDatabase {
  readonly codePointOrder = ' COLLATE "C"';
  readonly #db: PgDatabase;

  constructor(db: PgDatabase) {
    this.#db = db;
  }

  all<R>(sql: string, params: readonly unknown[] = []): Promise<R[]> {
    const { text, name } = pgStatement(sql);
    return this.#db.query<R>(text, [...params], name);
  }

  async get<R>(sql: string, params: readonly unknown[] = []): Promise<R | undefined> {
    return (await this.all<R>(sql, params))[0];
  }

  /** Commits alone; run again when it lost a deadlock or a serialisation conflict (see PgDatabase.alone). */
  run(sql: string, params: readonly unknown[] = []): Promise<number> {
    const { text, name } = pgStatement(sql);
    return this.#db.alone(() => this.#db.changes(text, [...params], name));
  }
}
