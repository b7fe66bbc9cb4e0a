/**
 * Runs one suite of store tests against every storage backend, through `openStore` as the bot
 * opens it: SQLite (a file in a temp folder) and PostgreSQL (a new database on the run's
 * throwaway server, test/support/postgres-server.ts).
 *
 *   forEachBackend((backend) => {
 *     it("keeps a message", async () => {
 *       const stores = await backend.open();              // a new, empty database
 *       …
 *       const again = await backend.open(backend.urlOf(stores)); // the same database, another connection
 *       await backend.committedRows(backend.urlOf(stores), "SELECT …"); // what another process reads
 *     });
 *   });
 *
 * Everything opened in a test is closed (and its temp folder removed) after it.
 */
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import pg from "pg";
import { afterEach, describe, inject } from "vitest";
import type { Logger } from "../../../src/log/logger.ts";
import type { RetentionSteps } from "../../../src/store/message-retention.ts";
import { openStore, sqliteFileOf } from "../../../src/store/open-store.ts";
import { PgDatabase } from "../../../src/store/postgres/database.ts";
import { pgRetentionSteps } from "../../../src/store/postgres/message-retention.ts";
import { openSqliteDatabase } from "../../../src/store/sqlite/database.ts";
import { sqliteRetentionSteps } from "../../../src/store/sqlite/message-retention.ts";
import { DEFAULT_OPTIONS, type StoreOptions } from "../../../src/store/store-options.ts";
import type { Stores } from "../../../src/store/types.ts";
import { committedRows, type Row } from "../../support/database-rows.ts";
import { freshPostgresUrl } from "../../support/postgres-server.ts";
import { captureLog, makeTempDir } from "../../support/store.ts";

export type BackendName = "sqlite" | "postgres";

export interface OpenOptions extends Partial<StoreOptions> {
  /** Default: a captured logger nobody reads. */
  logger?: Logger;
}

export interface StoreBackend {
  name: BackendName;
  /** Opens the stores on `url` (default: a new, empty database); they are closed after the test. */
  open(url?: string, options?: OpenOptions): Promise<Stores>;
  /** The url `stores` were opened on, to open the same database again. */
  urlOf(stores: Stores): string;
  /**
   * The rows `sql` (no parameters; the same text runs on both) reads through a connection of
   * its own: what is committed, as another process or a restart would find it. Integers are numbers.
   */
  committedRows(url: string, sql: string): Promise<Row[]>;
  /** The backend's retention steps on a connection of their own to `url`'s database, closed after the test. */
  retentionSteps(url: string): Promise<RetentionSteps>;
  /**
   * Opens the stores on a new database whose text sorts by English rules ("a" before "B"), as a
   * PostgreSQL server set up with an en_US locale does; SQLite always sorts by code point.
   */
  openSortingAsEnglish(): Promise<Stores>;
}

/** Work to do after the test, run last first. */
type Cleanups = Array<() => unknown>;

async function sqliteUrl(cleanups: Cleanups): Promise<string> {
  const dir = makeTempDir();
  cleanups.push(() => dir.remove());
  return `sqlite:${join(dir.path, "tsumugi.db")}`;
}

async function sqliteRetentionStepsOn(url: string, cleanups: Cleanups): Promise<RetentionSteps> {
  const db = openSqliteDatabase(sqliteFileOf(url), captureLog().logger);
  cleanups.push(() => db.close());
  return sqliteRetentionSteps(db);
}

async function pgRetentionStepsOn(url: string, cleanups: Cleanups): Promise<RetentionSteps> {
  const db = await PgDatabase.open(url, captureLog().logger);
  cleanups.push(() => db.close());
  return pgRetentionSteps(db);
}

/** A new database on this run's server with ICU's English collation (the server's own is C). */
async function englishPostgresUrl(): Promise<string> {
  const admin = new pg.Client({ connectionString: inject("postgresAdminUrl") });
  const name = `t_${randomBytes(8).toString("hex")}`;
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name} TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US'`);
  } finally {
    await admin.end();
  }
  const url = new URL(inject("postgresAdminUrl"));
  url.pathname = `/${name}`;
  return url.href;
}

const BACKENDS: ReadonlyArray<{
  name: BackendName;
  freshUrl: (cleanups: Cleanups) => Promise<string>;
  englishUrl: (cleanups: Cleanups) => Promise<string>;
  retentionSteps: (url: string, cleanups: Cleanups) => Promise<RetentionSteps>;
}> = [
  { name: "sqlite", freshUrl: sqliteUrl, englishUrl: sqliteUrl, retentionSteps: sqliteRetentionStepsOn },
  {
    name: "postgres",
    freshUrl: () => freshPostgresUrl(),
    englishUrl: englishPostgresUrl,
    retentionSteps: pgRetentionStepsOn,
  },
];

/** Declares `suite` once per backend, in a describe block named after it (`-t sqlite` runs one). */
export function forEachBackend(suite: (backend: StoreBackend) => void): void {
  for (const { name, freshUrl, englishUrl, retentionSteps } of BACKENDS) {
    describe(name, () => {
      const urls = new Map<Stores, string>();
      /** Run after each test, last first: stores close before their folder goes. */
      const cleanups: Cleanups = [];
      afterEach(async () => {
        for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
        urls.clear();
      });
      const backend: StoreBackend = {
        name,
        async open(url, options = {}) {
          const target = url ?? (await freshUrl(cleanups));
          const { logger = captureLog().logger, ...storeOptions } = options;
          const stores = await openStore(target, logger, { ...DEFAULT_OPTIONS, ...storeOptions });
          cleanups.push(() => stores.close());
          urls.set(stores, target);
          return stores;
        },
        urlOf(stores) {
          const url = urls.get(stores);
          if (url === undefined) throw new Error("these stores were not opened by this backend");
          return url;
        },
        committedRows,
        retentionSteps: (url) => retentionSteps(url, cleanups),
        openSortingAsEnglish: async () => backend.open(await englishUrl(cleanups)),
      };
      suite(backend);
    });
  }
}
