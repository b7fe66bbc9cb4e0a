/**
 * Throwaway Redis servers for tests: in memory only, on a free port. global-servers.ts starts
 * one per vitest run, shared by every test through `freshRedis()`; a test that needs to kill
 * Redis (failure tests) starts its own with `startRedisServer()`.
 *
 *   const { url, keyPrefix } = await freshRedis(); // redis://127.0.0.1:<port>/<n>, "t<n>:"
 *   const own = await startRedisServer();
 *   await own.stop(); // clients lose their connection
 *   const again = await startRedisServer({ port: own.port }); // back, empty, on the same port
 */
import { spawn } from "node:child_process";
import { Redis } from "ioredis";
import { inject } from "vitest";
import { exitOf, freePort, stopGroup, tailOf } from "./server-process.ts";

const REDIS_SERVER = "redis-server";
/** Logical databases on a server: one per `freshRedis()` call in a run. */
const DATABASES = 10_000;
/** In database 0 of the shared server: the last database number handed out. */
const COUNTER_KEY = "tsumugi-test:last-database";

export interface RedisServer {
  /** `redis://127.0.0.1:<port>` */
  url: string;
  port: number;
  /** Kills the server (SIGKILL: it keeps nothing on disk) and waits for its exit. */
  stop(): Promise<void>;
  /** Freezes the server (SIGSTOP): connections stay open and nothing is answered, as on a hung host. */
  pause(): void;
  /** Lets a paused server go on (SIGCONT). */
  resume(): void;
}

/** Starts redis-server on `port` (default: a free one); resolves once it answers PING. */
export async function startRedisServer(options: { port?: number } = {}): Promise<RedisServer> {
  const port = options.port ?? (await freePort());
  const child = spawn(
    REDIS_SERVER,
    [
      ...["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
      ...["--databases", String(DATABASES)],
    ],
    { detached: true, stdio: ["ignore", "pipe", "pipe"] },
  );
  const output = tailOf(child.stdout);
  let exited = false;
  void exitOf(child).then(() => {
    exited = true;
  });
  const url = `redis://127.0.0.1:${port}`;
  const server: RedisServer = {
    url,
    port,
    stop: () => stopGroup(child, "SIGKILL"),
    pause: () => child.kill("SIGSTOP"),
    resume: () => child.kill("SIGCONT"),
  };
  const deadline = Date.now() + 10_000;
  for (;;) {
    const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    // Refused while the server starts: `connect` rejects with it, the event would be logged too.
    client.on("error", () => {});
    try {
      await client.connect();
      await client.ping();
      return server;
    } catch (error) {
      if (exited || Date.now() > deadline) {
        await server.stop();
        throw new Error(`redis-server did not start (${(error as Error).message}):\n${output()}`);
      }
    } finally {
      client.disconnect();
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export interface RedisTarget {
  /** `redis://127.0.0.1:<port>/<n>`: a logical database no other call got, so keys never meet. */
  url: string;
  /**
   * `t<n>:`, unique like the database. Pub/sub channels are shared by all databases of a
   * server: code under test that publishes should name its channels with this prefix.
   */
  keyPrefix: string;
}

/** The `cluster.secret` test instances share (a cluster does not start without one). */
export const CLUSTER_SECRET = "test-cluster-secret-0123456789";

/** `cluster` config for instance `instanceId` on `redis`, with the secret all test instances share. */
export function clusterConfig(
  redis: RedisTarget,
  instanceId: string,
): { redisUrl: string; secret: string; instanceId: string; keyPrefix: string } {
  return { redisUrl: redis.url, secret: CLUSTER_SECRET, instanceId, keyPrefix: clusterKeyPrefix(redis) };
}

/** `redis`'s key prefix as `cluster.keyPrefix` takes it: the bot puts the ":" after it itself. */
export function clusterKeyPrefix(redis: RedisTarget): string {
  return redis.keyPrefix.replace(/:$/, "");
}

/** What is published on one channel of a Redis, recorded as anyone holding that Redis could. */
export class ChannelRecording {
  /** The messages published since the recording started or was last cleared. */
  messages: string[] = [];

  private constructor(private readonly subscriber: Redis) {
    subscriber.on("message", (_channel: string, message: string) => this.messages.push(message));
  }

  static async start(url: string, channel: string): Promise<ChannelRecording> {
    const recording = new ChannelRecording(new Redis(url));
    await recording.subscriber.subscribe(channel);
    return recording;
  }

  clear(): void {
    this.messages = [];
  }

  stop(): void {
    this.subscriber.disconnect();
  }
}

/** A database of its own on this run's shared Redis server. */
export async function freshRedis(): Promise<RedisTarget> {
  const serverUrl = inject("redisUrl");
  const client = new Redis(serverUrl);
  try {
    const database = await client.incr(COUNTER_KEY);
    if (database >= DATABASES)
      throw new Error(`more than ${DATABASES - 1} Redis databases asked for in one run`);
    return { url: `${serverUrl}/${database}`, keyPrefix: `t${database}:` };
  } finally {
    client.disconnect();
  }
}
