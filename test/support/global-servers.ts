/**
 * vitest globalSetup: one throwaway PostgreSQL and one Redis server for the whole run, started
 * side by side in the main process, their urls handed to tests through `inject` (see
 * postgres-server.ts and redis-server.ts), both stopped and deleted when the run ends.
 */
import type { TestProject } from "vitest/node";
import { startPostgresServer } from "./postgres-server.ts";
import { startRedisServer } from "./redis-server.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** The run's PostgreSQL server: its maintenance database, as the superuser. */
    postgresAdminUrl: string;
    /** The run's shared Redis server, `redis://127.0.0.1:<port>`. */
    redisUrl: string;
  }
}

export default async function startServers(project: TestProject): Promise<() => Promise<void>> {
  const [postgres, redis] = await Promise.all([startPostgresServer(), startRedisServer()]);
  project.provide("postgresAdminUrl", postgres.adminUrl);
  project.provide("redisUrl", redis.url);
  return async () => {
    await Promise.all([postgres.stop(), redis.stop()]);
  };
}
