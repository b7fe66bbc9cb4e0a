import pg from "pg";
import type { Logger } from "../../log/logger.ts";
import { errorText } from "../sqlite/storage-errors.ts";
import { applyPgMigrations, PG_MIGRATIONS } from "./migrations.ts";
import type { PgMigration } from "./pg-migration.ts";
import type { PgQuery } from "./pg-query.ts";

/** The statement runner's type, where the session fences import it from. */
export type { PgQuery } from "./pg-query.ts";

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
      // queries are short, so it only ever costs. The statements we prepare (`name`) are planned
      // once per connection: left to choose, PostgreSQL kept planning the memory search anew on
      // every call (most of its cost), while the generic plan is as fast at 100,000 memories.
      // Set at connection start-up: no extra query.
      options: "-c jit=off -c plan_cache_mode=force_generic_plan",
      // Statements of a transaction are sent without waiting for the previous one's answer (the
      // server still runs them in order): a commit of several stores costs two round trips.
      pipeline: true,
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

  async query<R = Record<string, unknown>>(sql: string, params?: unknown[], name?: string): Promise<R[]> {
    const result = await this.#pool.query(queryConfig(sql, params, name));
    return result.rows as R[];
  }

  /** Runs one writing statement on its own; resolves with how many rows it changed. */
  async changes(sql: string, params?: unknown[], name?: string): Promise<number> {
    const result = await this.#pool.query(queryConfig(sql, params, name));
    return result.rowCount ?? 0;
  }

  /**
   * Runs `fn` in one transaction on one connection: committed when it resolves, rolled back when
   * it throws. A deadlock or serialisation failure (another instance's transaction wanted the
   * same rows) is run again at once, a few times, before it counts as a failure: `fn` must be
   * safe to run again. `atOnce`: `fn` issues all its statements before it first waits, so
   * COMMIT can follow them at once — the whole transaction is one round trip.
   */
  transaction<T>(fn: (tx: PgQuery) => Promise<T>, options: { atOnce?: boolean } = {}): Promise<T> {
    return retryingConflicts(() => this.#transactionOnce(fn, options.atOnce ?? false));
  }

  /**
   * Runs `fn`, which makes ONE statement, outside a transaction: the statement commits alone, in
   * one round trip where BEGIN … COMMIT takes three. Run again on a conflict, as `transaction`.
   */
  alone<T>(fn: (query: PgQuery) => Promise<T>): Promise<T> {
    return retryingConflicts(() => fn(this));
  }

  async #transactionOnce<T>(fn: (tx: PgQuery) => Promise<T>, atOnce: boolean): Promise<T> {
    const client = await this.#pool.connect();
    const tx: PgQuery = {
      query: async <R>(sql: string, params?: unknown[], name?: string) =>
        (await client.query(queryConfig(sql, params, name))).rows as R[],
    };
    let broken: Error | undefined;
    // The pool listens for a lost connection only while the client is idle: checked out, an
    // 'error' event without a listener (the server restarted mid-transaction) would end the
    // process. The statements under way fail with it; the client is given back destroyed.
    const lost = (error: Error) => {
      broken = error;
    };
    client.on("error", lost);
    try {
      // Pipelined: BEGIN leaves with the first statement instead of taking a round trip alone,
      // and with `atOnce` COMMIT right behind the last (after a failed one it is a ROLLBACK).
      const begun = client.query("BEGIN");
      const work = fn(tx);
      const committing = atOnce ? client.query("COMMIT") : undefined;
      committing?.catch(() => undefined);
      const result = await work.finally(() => begun.catch(() => undefined));
      await begun;
      const commit = await (committing ?? client.query("COMMIT"));
      // A statement failed that `fn` did not wait for: PostgreSQL ends the transaction so.
      if (commit.command === "ROLLBACK") throw new Error("the transaction was rolled back");
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
      client.removeListener("error", lost);
      client.release(broken);
    }
  }

  /** Waits for queries under way, then closes every connection. */
  async close(): Promise<void> {
    await this.#pool.end();
  }
}

/** pg's query config: a named statement is prepared once per connection. */
function queryConfig(sql: string, params: unknown[] | undefined, name: string | undefined): pg.QueryConfig {
  return { text: sql, values: params, ...(name && { name }) };
}

/**
 * Runs `attempt`; a deadlock or serialisation failure (SQLSTATE class 40: another instance's
 * transaction wanted the same rows) is run again at once, a few times, before it counts.
 */
async function retryingConflicts<T>(attempt: () => Promise<T>): Promise<T> {
  for (let tries = 1; ; tries++) {
    try {
      return await attempt();
    } catch (error) {
      const conflict = String((error as { code?: unknown }).code ?? "").startsWith("40");
      if (!conflict || tries === TRANSACTION_ATTEMPTS) throw error;
    }
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
