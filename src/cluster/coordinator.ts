import type { Redis } from "ioredis";
import type { Logger } from "../log/logger.ts";
import type { ClusterKeys } from "./keys.ts";
import { RedisScript } from "./redis-script.ts";

/** What an instance publishes about itself with every heartbeat (the console's instance list). */
export interface InstanceInfo {
  id: string;
  /** Where its console and API listen, `host:port`. */
  address: string;
  hostname: string;
  pid: number;
  startedAt: number;
  /** Unix ms of its newest heartbeat. */
  seenAt: number;
  /** The platform accounts whose connection it holds. */
  accounts: Array<{ adapter: string; selfId: string; connected: boolean }>;
  /** Sessions it owns now. */
  sessions: number;
  storage: { state: string; reason?: string; spooled: number; dropped: number };
}

/** Claims `KEYS[1]` for `ARGV[1]` unless another holds it; answers the holder. */
const CLAIM = new RedisScript(`
local holder = redis.call('get', KEYS[1])
if not holder then
  redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return ARGV[1]
end
if holder == ARGV[1] then redis.call('pexpire', KEYS[1], ARGV[2]) end
return holder`);

/** Extends each of KEYS held by `ARGV[1]`; answers 1/0 per key (0: lost to another, or expired). */
const RENEW = new RedisScript(`
local held = {}
for i, key in ipairs(KEYS) do
  if redis.call('get', key) == ARGV[1] then
    redis.call('pexpire', key, ARGV[2])
    held[i] = 1
  else
    held[i] = 0
  end
end
return held`);

/** Deletes `KEYS[1]` only while `ARGV[1]` holds it. */
const RELEASE = new RedisScript(`
if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end
return 0`);

/** Something to do at every heartbeat (renew what it holds, look for dead instances, …). */
export type BeatTask = () => Promise<void>;

/**
 * This instance's place in the cluster: its heartbeat (an expiring key renewed every third of
 * `leaseMs`, carrying its `InstanceInfo`) and leases — keys naming the one instance that holds
 * a session, an account or a forward-ws dial. A lease lasts `leaseMs` unless renewed, so the
 * work of an instance that dies (SIGKILL, power loss, partition) is free again within it.
 */
export class Coordinator {
  readonly #tasks: BeatTask[] = [];
  #timer: NodeJS.Timeout | undefined;
  #beating: Promise<void> | undefined;
  /** Set while heartbeats fail, so an outage is one log line, not one per beat. */
  #failing = false;
  /** When the heartbeat last came back from an outage (0: never failed). */
  #backAt = 0;

  constructor(
    readonly redis: Redis,
    readonly keys: ClusterKeys,
    readonly id: string,
    readonly leaseMs: number,
    private readonly describe: () => InstanceInfo,
    private readonly logger: Logger,
  ) {}

  /** Registers the instance and starts its heartbeat. */
  async join(): Promise<void> {
    await this.#publish();
    this.#timer = setInterval(() => void this.beat(), Math.max(200, Math.floor(this.leaseMs / 3)));
    this.#timer.unref();
  }

  /** Runs `task` at every heartbeat, after the instance's own key is renewed. */
  onBeat(task: BeatTask): void {
    this.#tasks.push(task);
  }

  /** One heartbeat now (skipped while the previous one still runs). */
  beat(): Promise<void> {
    this.#beating ??= this.#beat().finally(() => {
      this.#beating = undefined;
    });
    return this.#beating;
  }

  async #beat(): Promise<void> {
    try {
      await this.#publish();
    } catch (error) {
      if (!this.#failing) {
        this.logger.error(
          { err: error },
          "cluster heartbeat failed: the sessions this instance owns stay here, but others may take them once its leases lapse",
        );
      }
      this.#failing = true;
      return;
    }
    if (this.#failing) {
      this.logger.warn("cluster heartbeat back");
      this.#backAt = Date.now();
    }
    this.#failing = false;
    for (const task of this.#tasks) {
      try {
        await task();
      } catch (error) {
        this.logger.warn({ err: error }, "cluster heartbeat task failed");
      }
    }
  }

  async #publish(): Promise<void> {
    const info = { ...this.describe(), seenAt: Date.now() };
    // Joined again at every beat: an instance taken over while it was only paused (or a Redis
    // that lost its data) must be listed, counted and watched again.
    await this.redis
      .multi()
      .set(this.keys.instance(this.id), JSON.stringify(info), "PX", this.leaseMs)
      .sadd(this.keys.instances, this.id)
      .exec();
  }

  /**
   * Whether this instance's view of the others can be trusted: false for two leases after its
   * own heartbeat came back from an outage, when every other heartbeat may have lapsed too
   * (they could not reach Redis either) although those instances are alive.
   */
  get settled(): boolean {
    return Date.now() - this.#backAt >= 2 * this.leaseMs;
  }

  /** Takes `key` for this instance unless another holds it; resolves with the holder's id. */
  async claim(key: string): Promise<string> {
    return (await CLAIM.run(this.redis, [key], [this.id, this.leaseMs])) as string;
  }

  /** Extends the leases this instance holds; resolves with the keys it no longer holds. */
  async renew(keys: readonly string[]): Promise<string[]> {
    if (keys.length === 0) return [];
    const held = (await RENEW.run(this.redis, keys, [this.id, this.leaseMs])) as number[];
    return keys.filter((_, index) => held[index] !== 1);
  }

  async release(key: string): Promise<void> {
    await RELEASE.run(this.redis, [key], [this.id]);
  }

  /** Who holds `key` now, if anyone. */
  holder(key: string): Promise<string | null> {
    return this.redis.get(key);
  }

  /** Every instance alive now (its heartbeat not expired), this one included. */
  async instances(): Promise<InstanceInfo[]> {
    const ids = await this.redis.smembers(this.keys.instances);
    if (ids.length === 0) return [];
    const values = await this.redis.mget(ids.map((id) => this.keys.instance(id)));
    return values.filter((value) => value !== null).map((value) => JSON.parse(value) as InstanceInfo);
  }

  /** Instances that joined and whose heartbeat expired: their work is to be taken over. */
  async dead(): Promise<string[]> {
    const ids = (await this.redis.smembers(this.keys.instances)).filter((id) => id !== this.id);
    if (ids.length === 0) return [];
    const values = await this.redis.mget(ids.map((id) => this.keys.instance(id)));
    return ids.filter((_, index) => values[index] === null);
  }

  async isAlive(id: string): Promise<boolean> {
    return (await this.redis.exists(this.keys.instance(id))) === 1;
  }

  /**
   * Stops the heartbeat and deletes the instance's key, so the others see it gone at once
   * (not a lease later) and take over what it leaves: triggers not yet answered, its inbox.
   */
  async leave(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#beating;
    await this.redis.del(this.keys.instance(this.id));
  }

  /** Forgets an instance whose work was taken over. */
  async forget(id: string): Promise<void> {
    await this.redis.srem(this.keys.instances, id);
  }
}
