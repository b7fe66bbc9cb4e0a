import pg from "pg";
import type { Logger } from "../../log/logger.ts";
import { errorText } from "../sqlite/storage-errors.ts";
import { applyPgMigrations, PG_MIGRATIONS, type PgMigration } from "./migrations.ts";

/** Runs one statement and resolves with its rows: the pool, or one transaction's client. */
export interface PgQuery {
  query<R = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<R[]>;
}

/** Connections per bot: writes go through one commit at a time, reads beside it. */
const POOL_SIZE = 4;
/** How often a transaction that lost a deadlock or a serialisation conflict is tried in all. */
const TRANSACTION_ATTEMPTS = 3;
/** How long getting a connection may take before the attempt fails (and writes are spooled). */
const CONNECT_TIMEOUT_MS = 5_000;
/** Idle connections are closed after this, so a quiet bot holds few. */
const IDLE_TIMEOUT_MS = 30_000;

const INT8_OID = 20;
const NUMERIC_OID = 1700;

/**
 * Times are Unix milliseconds in BIGINT columns, and COUNT/SUM answer BIGINT or NUMERIC: pg
 * returns those as strings (they may exceed 2^53); every value we store fits a JS number.
 */
const TYPES: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: string) => {
    if (oid === INT8_OID || oid === NUMERIC_OID) return Number;
    return pg.types.getTypeParser(oid, format as "text");
  }) as pg.CustomTypesConfig["getTypeParser"],
};

/**
 * A PostgreSQL database reached through a small pool of connections, its schema brought up to
 * date on open. Errors and log lines name the server as `host:port/database`, never the URL:
 * it holds the password.
 */
export class PgDatabase implements PgQuery {
  readonly #pool: pg.Pool;
  /** `host:port/database`, safe to log. */
  readonly location: string;

  private constructor(pool: pg.Pool, location: string) {
    this.#pool = pool;
    this.location = location;
  }

  /**
   * Connects to `url` (`postgres://` or `postgresql://`) and applies pending migrations.
   * Rejects with one clear line when the server cannot be reached or refuses the login.
   */
  static async open(
    url: string,
    logger: Logger,
    migrations: readonly PgMigration[] = PG_MIGRATIONS,
  ): Promise<PgDatabase> {
    const location = pgLocation(url);
    const pool = new pg.Pool({
      connectionString: url,
      // JIT compiling a query takes tens to hundreds of milliseconds, and the planner asks for it
      // on small tables it has no statistics for yet (the memory search did, on every turn): our
      // queries are short, so it only ever costs. Set at connection start-up: no extra query.
      options: "-c jit=off",
      max: POOL_SIZE,
      // One connection stays open however quiet the bot: a turn after a pause would otherwise
      // pay for connecting (and authenticating) again.
      min: 1,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      idleTimeoutMillis: IDLE_TIMEOUT_MS,
      keepAlive: true,
      types: TYPES,
    });
    // An idle connection the server dropped (restart, network) is replaced on the next query;
    // without a listener the pool's error event would end the process.
    pool.on("error", (error) => {
      logger.warn({ reason: withoutPassword(errorText(error), url), location }, "PostgreSQL connection lost");
    });
    const db = new PgDatabase(pool, location);
    try {
      await applyPgMigrations(db, migrations, logger);
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw new Error(
        `storage.url: cannot open PostgreSQL ${location}: ${withoutPassword(errorText(error), url)}`,
        {
          cause: error,
        },
      );
    }
    logger.debug({ location }, "opened database");
    return db;
  }

  async query<R = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<R[]> {
    const result = await this.#pool.query(sql, params);
    return result.rows as R[];
  }

  /**
   * Runs `fn` in one transaction on one connection: committed when it resolves, rolled back when
   * it throws. A deadlock or serialisation failure (another instance's transaction wanted the
   * same rows) is run again at once, a few times, before it counts as a failure: `fn` must be
   * safe to run again.
   */
  async transaction<T>(fn: (tx: PgQuery) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#transactionOnce(fn);
      } catch (error) {
        const conflict = String((error as { code?: unknown }).code ?? "").startsWith("40");
        if (!conflict || attempt === TRANSACTION_ATTEMPTS) throw error;
      }
    }
  }

  async #transactionOnce<T>(fn: (tx: PgQuery) => Promise<T>): Promise<T> {
    const client = await this.#pool.connect();
    const tx: PgQuery = {
      query: async <R>(sql: string, params?: unknown[]) => (await client.query(sql, params)).rows as R[],
    };
    let broken: Error | undefined;
    try {
      await client.query("BEGIN");
      const result = await fn(tx);
      await client.query("COMMIT");
      return result;
    } catch (error) {
      try {
        await client.query("ROLLBACK");
      } catch (rollbackError) {
        // The connection itself failed: give it back destroyed, not to be reused.
        broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
      }
      throw error;
    } finally {
      client.release(broken);
    }
  }

  /** Waits for queries under way, then closes every connection. */
  async close(): Promise<void> {
    await this.#pool.end();
  }
}

/** `host:port/database` of a PostgreSQL URL: what logs and errors may show of it. */
export function pgLocation(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error("storage.url: not a valid postgres:// URL");
  }
  const database = decodeURIComponent(parsed.pathname.slice(1));
  return `${parsed.hostname || "localhost"}:${parsed.port || "5432"}/${database}`;
}

/** Drivers and servers may echo connection details back: keep the URL's password out of the text. */
function withoutPassword(text: string, url: string): string {
  const password = URL.canParse(url) ? decodeURIComponent(new URL(url).password) : "";
  return password === "" ? text : text.replaceAll(password, "***");
}
