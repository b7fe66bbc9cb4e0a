import type { Redis } from "ioredis";
import type { Logger } from "../log/logger.ts";

/** `redis://:secret@host:6379/0` → `host:6379/0`: what logs and errors may show of the url. */
export function redisAddress(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || "6379"}${parsed.pathname === "/" ? "" : parsed.pathname}`;
  } catch {
    return "(unparsable url)";
  }
}

/**
 * Connects to Redis; rejects with one clear line when it cannot be reached. `ioredis` is
 * imported here, on first use, so a bot without a cluster never loads it. The client retries
 * a lost connection by itself; commands meanwhile fail at once (no offline queue), so a
 * caller never waits on a dead Redis longer than its own timeout.
 */
export async function connectRedis(url: string, name: string, logger: Logger): Promise<Redis> {
  const { Redis } = await import("ioredis");
  const address = redisAddress(url);
  const client = new Redis(url, {
    lazyConnect: true,
    connectionName: name,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 5_000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  });
  let reportedDown = false;
  client.on("error", (error: Error) => {
    if (reportedDown) return;
    reportedDown = true;
    logger.error({ redis: address, err: error.message }, "lost the connection to Redis; reconnecting");
  });
  client.on("ready", () => {
    if (reportedDown) logger.warn({ redis: address }, "Redis connection back");
    reportedDown = false;
  });
  try {
    await client.connect();
  } catch (error) {
    client.disconnect();
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(
      `cluster.redisUrl: cannot connect to Redis at ${address}: ${reason.replaceAll(url, address)}`,
    );
  }
  return client;
}
