/**
 * A throwaway PostgreSQL server for tests: a fresh cluster in a temp folder, tuned for speed
 * (no fsync), trust authentication, removed when stopped. global-servers.ts starts one per
 * vitest run; a test asks it for an empty database of its own:
 *
 *   const url = await freshPostgresUrl(); // postgres://postgres@127.0.0.1:<port>/t_<random>
 *   const stores = await openStore(url, logger);
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { inject } from "vitest";
import { exitOf, freePort, stopGroup, tailOf } from "./server-process.ts";

/** Where Debian's postgresql package puts the server's binaries: one folder per major version. */
const DEBIAN_POSTGRES_ROOT = "/usr/lib/postgresql";
/** The cluster's superuser, whatever user runs the tests. */
const SUPERUSER = "postgres";
/** PostgreSQL refuses to run as root; as root the server runs as this system user. */
const SYSTEM_USER = "postgres";
/** The error code of CREATE DATABASE for a name taken already. */
const DUPLICATE_DATABASE = "42P04";

export interface PostgresServer {
  /** `postgres://postgres@127.0.0.1:<port>/postgres`: the maintenance database, as the superuser. */
  adminUrl: string;
  /**
   * Shuts the server down at once (as a crash would: clients lose their connections) and starts
   * it again on the same port and data; resolves once it accepts connections again.
   */
  restart(): Promise<void>;
  /** Shuts the server down at once and deletes its cluster. */
  stop(): Promise<void>;
}

/** The newest installed server's bin folder (e.g. /usr/lib/postgresql/15/bin). */
function postgresBinDir(): string {
  const versions = existsSync(DEBIAN_POSTGRES_ROOT) ? readdirSync(DEBIAN_POSTGRES_ROOT) : [];
  const installed = versions
    .filter((version) => existsSync(join(DEBIAN_POSTGRES_ROOT, version, "bin", "postgres")))
    .sort((a, b) => Number(b) - Number(a));
  if (installed[0] === undefined) {
    throw new Error(`no PostgreSQL server in ${DEBIAN_POSTGRES_ROOT}/*/bin (apt-get install postgresql)`);
  }
  return join(DEBIAN_POSTGRES_ROOT, installed[0], "bin");
}

/** The command line running `binary` as a user PostgreSQL accepts. */
function asServerUser(binary: string, args: string[]): [string, string[]] {
  return process.getuid?.() === 0 ? ["runuser", ["-u", SYSTEM_USER, "--", binary, ...args]] : [binary, args];
}

/** Starts a new cluster on a free port; resolves once it accepts connections. */
export async function startPostgresServer(): Promise<PostgresServer> {
  const bin = postgresBinDir();
  const root = mkdtempSync(join(tmpdir(), "tsumugi-pg-"));
  const dataDir = join(root, "data");
  const socketDir = join(root, "socket");
  mkdirSync(socketDir);
  if (process.getuid?.() === 0) execFileSync("chown", ["-R", SYSTEM_USER, root]);
  const [initdb, initdbArgs] = asServerUser(join(bin, "initdb"), [
    ...["-D", dataDir, "-U", SUPERUSER, "-A", "trust", "-E", "UTF8", "--locale=C"],
    ...["--no-sync", "--no-instructions"],
  ]);
  execFileSync(initdb, initdbArgs, { stdio: "pipe" });

  const port = await freePort();
  const [postgres, args] = asServerUser(join(bin, "postgres"), [
    ...["-D", dataDir, "-p", String(port), "-k", socketDir, "-c", "listen_addresses=127.0.0.1"],
    // Durability is worthless for a cluster deleted after the run; speed is not.
    ...["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"],
    ...["-c", "max_connections=300"],
  ]);
  const adminUrl = `postgres://${SUPERUSER}@127.0.0.1:${port}/postgres`;
  const run = async () => {
    // Its own process group, so stopping it reaches the server under runuser too.
    const child = spawn(postgres, args, { detached: true, stdio: ["ignore", "ignore", "pipe"] });
    await waitUntilAccepting(adminUrl, child, tailOf(child.stderr)).catch(async (error: unknown) => {
      await stopGroup(child, "SIGQUIT");
      throw error;
    });
    return child;
  };
  let child: ChildProcess | undefined;
  const stop = async () => {
    // SIGQUIT: immediate shutdown, which still releases the shared memory.
    if (child) await stopGroup(child, "SIGQUIT");
    rmSync(root, { recursive: true, force: true });
  };
  try {
    child = await run();
  } catch (error) {
    await stop();
    throw error;
  }
  const restart = async () => {
    if (child) await stopGroup(child, "SIGQUIT");
    child = await run();
  };
  return { adminUrl, restart, stop };
}

async function waitUntilAccepting(url: string, child: ChildProcess, output: () => string): Promise<void> {
  let exited = false;
  void exitOf(child).then(() => {
    exited = true;
  });
  const deadline = Date.now() + 20_000;
  for (;;) {
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      return;
    } catch (error) {
      if (exited || Date.now() > deadline) {
        throw new Error(`PostgreSQL did not start (${(error as Error).message}):\n${output()}`);
      }
    } finally {
      await client.end().catch(() => {});
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The url of database `name` on this run's server, created when missing: the same name, the same database. */
export function postgresDatabaseUrl(name: string): Promise<string> {
  return createPostgresDatabase(inject("postgresAdminUrl"), name);
}

/** The url of database `name` on the server of `adminUrl`, created when missing (benches use it outside vitest). */
export async function createPostgresDatabase(adminUrl: string, name: string): Promise<string> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`);
  } catch (error) {
    if ((error as { code?: string }).code !== DUPLICATE_DATABASE) throw error;
  } finally {
    await client.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.href;
}

/** A new, empty database on this run's server. */
export function freshPostgresUrl(): Promise<string> {
  return postgresDatabaseUrl(`t_${randomBytes(8).toString("hex")}`);
}
