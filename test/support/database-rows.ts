/**
 * Reads a bot's database the way another process would, whatever `storage.url` names: a SQLite
 * file or a PostgreSQL database. The schemas match, so one SQL text (without parameters) serves both.
 */
import BetterSqlite3 from "better-sqlite3";
import pg from "pg";
import { sqliteFileOf } from "../../src/store/open-store.ts";

export type Row = Record<string, unknown>;

/** pg answers BIGINT, COUNT and SUM as strings; every value the stores keep fits a number. */
const NUMBERS_AS_NUMBERS: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === pg.types.builtins.INT8 || oid === pg.types.builtins.NUMERIC
      ? Number
      : pg.types.getTypeParser(oid, format as "text")) as pg.CustomTypesConfig["getTypeParser"],
};

/** The rows `sql` reads through a connection of its own: what is committed. Integers are numbers. */
export async function committedRows<R = Row>(url: string, sql: string): Promise<R[]> {
  if (/^postgres(ql)?:/i.test(url)) {
    const client = new pg.Client({ connectionString: url, types: NUMBERS_AS_NUMBERS });
    await client.connect();
    try {
      return (await client.query(sql)).rows as R[];
    } finally {
      await client.end();
    }
  }
  const reader = new BetterSqlite3(sqliteFileOf(url), { readonly: true });
  try {
    return reader.prepare(sql).all() as R[];
  } finally {
    reader.close();
  }
}
