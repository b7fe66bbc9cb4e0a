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
 * A command that gets no answer within this long fails (a server gone silently: no reset, no
 * close), so a heartbeat or a claim never hangs; the inbox's blocking reads wait 1 s.
 */
const COMMAND_TIMEOUT_MS = 5_000;

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
    commandTimeout: COMMAND_TIMEOUT_MS,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  });
  reportOutages(client, address, "", logger);
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

/** Another connection to the same Redis (blocking reads and pub/sub need their own), connected. */
export async function anotherConnection(client: Redis, purpose: string, logger: Logger): Promise<Redis> {
  const other = client.duplicate();
  const { host, port, db } = client.options;
  reportOutages(other, `${host}:${port}/${db ?? 0}`, purpose, logger);
  await other.connect();
  return other;
}

/** Logs a lost connection once, and once more when it is back; ioredis retries meanwhile. */
function reportOutages(client: Redis, address: string, purpose: string, logger: Logger): void {
  let down = false;
  const connection = purpose === "" ? {} : { connection: purpose };
  client.on("error", (error: Error) => {
    if (down) return;
    down = true;
    logger.error(
      { redis: address, ...connection, err: error.message },
      "lost the connection to Redis; reconnecting",
    );
  });
  client.on("ready", () => {
    if (down) logger.warn({ redis: address, ...connection }, "Redis connection back");
    down = false;
  });
}
