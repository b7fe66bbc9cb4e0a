import type { Redis } from "ioredis";
import type { Logger } from "../log/logger.ts";
import type { FenceToken } from "../store/session-fence.ts";
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

/**
 * Claims session lease `KEYS[1]` for `ARGV[1]` unless another holds it: answers the holder, and
 * when that is `ARGV[1]`, Redis's clock (seconds, microseconds) as the lease's fencing token.
 * Redis's own clock, so the token grows from one holder to the next whichever instance claims,
 * also after Redis restarts and forgets every lease (a counter kept in Redis would restart at 0).
 */
const CLAIM_SESSION = new RedisScript(`
local holder = redis.call('get', KEYS[1])
if holder and holder ~= ARGV[1] then return {holder} end
redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2])
local now = redis.call('time')
return {ARGV[1], now[1], now[2]}`);

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

/**
 * Leases to wait after Redis lost its data before taking over an instance listed again: each
 * live one must notice the restart and reconnect first (its client retries every 0.2–2 s).
 */
const RELISTED_GRACE_LEASES = 4;

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
  /** Until when no take-over happens: the others may not have re-joined after an outage yet. */
  #takeoverAfter = 0;
  /** When the newest heartbeat that reached Redis was sent: the leases held were renewed after it. */
  #renewedAt = 0;
  /** When the heartbeat timer last fired: a much longer gap means the process was paused. */
  #firedAt = 0;
  /** The instances listed at the newest heartbeat, this one included. */
  #members = new Set<string>();

  constructor(
    readonly redis: Redis,
    readonly keys: ClusterKeys,
    readonly id: string,
    readonly leaseMs: number,
    private readonly describe: () => InstanceInfo,
    private readonly logger: Logger,
    /**
     * The instances the database names as running turns: after Redis lost its data, they are
     * listed again too — one that died before this instance's first heartbeat saw it join is
     * known only there.
     */
    private readonly recordedInstances: () => Promise<string[]> = async () => [],
  ) {}

  /** Registers the instance and starts its heartbeat. */
  async join(): Promise<void> {
    const sentAt = Date.now();
    await this.#publish();
    this.#renewedAt = sentAt;
    this.#firedAt = Date.now();
    this.#timer = setInterval(
      () => {
        this.#noticePause();
        void this.beat();
      },
      Math.max(200, Math.floor(this.leaseMs / 3)),
    );
    this.#timer.unref();
  }

  /**
   * Whether the leases this instance holds are surely still its own: its last heartbeat reached
   * Redis less than a lease ago. False after a pause (SIGSTOP, a hung VM, a long GC) or a Redis
   * outage: then `confirmLeases` says which leases are still held.
   */
  get leasesCurrent(): boolean {
    return Date.now() - this.#renewedAt < this.leaseMs;
  }

  /** One line when the heartbeat timer fires a lease or more late: the process was paused. */
  #noticePause(): void {
    const now = Date.now();
    const pausedMs = now - this.#firedAt;
    this.#firedAt = now;
    if (pausedMs < this.leaseMs) return;
    this.logger.warn(
      { pausedMs, leaseMs: this.leaseMs },
      "this instance was paused longer than a lease: sessions others took meanwhile are theirs now; its turns in those sessions stop before their next send and their messages go to the new owner",
    );
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
    const sentAt = Date.now();
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
      // Not shorter than a wait set by this very beat: Redis may have come back empty (#listAgain).
      this.#takeoverAfter = Math.max(this.#takeoverAfter, Date.now() + 2 * this.leaseMs);
    }
    this.#failing = false;
    for (const task of this.#tasks) {
      try {
        await task();
      } catch (error) {
        this.logger.warn({ err: error }, "cluster heartbeat task failed");
      }
    }
    // The leases were renewed by the tasks (SessionRouter.beat), all after `sentAt`.
    this.#renewedAt = Math.max(this.#renewedAt, sentAt);
  }

  /**
   * Makes the leases current again now, without waiting for a heartbeat (it may be running the
   * very task that asks): publishes this instance's heartbeat, then `renew` renews the leases it
   * holds and forgets the lost ones. Rejects when Redis cannot be reached.
   */
  async confirmLeases(renew: () => Promise<void>): Promise<void> {
    const sentAt = Date.now();
    await this.#publish();
    await renew();
    this.#renewedAt = Math.max(this.#renewedAt, sentAt);
  }

  async #publish(): Promise<void> {
    const info = { ...this.describe(), seenAt: Date.now() };
    // Joined again at every beat: an instance taken over while it was only paused (or a Redis
    // that lost its data) must be listed, counted and watched again.
    const results =
      (await this.redis
        .multi()
        .set(this.keys.instance(this.id), JSON.stringify(info), "PX", this.leaseMs)
        .sadd(this.keys.instances, this.id)
        .set(this.keys.dataKept, this.id, "NX")
        .smembers(this.keys.instances)
        .exec()) ?? [];
    for (const [error] of results) if (error) throw error;
    const markedNow = results[2]?.[1] === "OK";
    const listed = (results[3]?.[1] ?? []) as string[];
    if (markedNow && this.#members.size > 0) await this.#listAgain(listed);
    else this.#members = new Set(listed);
  }

  /**
   * Redis lost its data (restarted without persistence): the instances this one knew, and
   * those the database names as running turns, are listed again, so that a dead one among
   * them — whose heartbeat Redis forgot too — is still taken over (its running turns are in the
   * database). No take-over for RELISTED_GRACE_LEASES leases: every live one reconnects to the
   * restarted Redis on its own and re-joins meanwhile.
   */
  async #listAgain(listed: string[]): Promise<void> {
    const recorded = await this.recordedInstances().catch((error: unknown) => {
      this.logger.warn(
        { err: error },
        "could not read which instances run turns from the database; only the instances this one knew are listed again",
      );
      return [];
    });
    const known = [...new Set([...this.#members, ...recorded])];
    await this.redis.sadd(this.keys.instances, ...known);
    this.#members = new Set([...known, ...listed]);
    this.#takeoverAfter = Date.now() + RELISTED_GRACE_LEASES * this.leaseMs;
    this.logger.warn(
      { instances: known },
      "Redis lost its data (restarted without persistence): the instances known before are listed again; those that do not re-join are taken over",
    );
  }

  /**
   * Whether this instance's view of the others can be trusted: false for two leases after its
   * own heartbeat came back from an outage, when every other heartbeat may have lapsed too
   * (they could not reach Redis either) although those instances are alive, and for longer
   * after Redis lost its data (see #listAgain).
   */
  get settled(): boolean {
    return Date.now() >= this.#takeoverAfter;
  }

  /** Takes `key` for this instance unless another holds it; resolves with the holder's id. */
  async claim(key: string): Promise<string> {
    return (await CLAIM.run(this.redis, [key], [this.id, this.leaseMs])) as string;
  }

  /**
   * Claims a session's lease (`key`) for this instance unless another holds it; resolves with
   * the holder and, when this instance holds it now, the lease's fencing token.
   */
  async claimSession(key: string): Promise<{ holder: string; fence?: FenceToken }> {
    const [holder, seconds, micros] = (await CLAIM_SESSION.run(
      this.redis,
      [key],
      [this.id, this.leaseMs],
    )) as [string, string?, string?];
    if (seconds === undefined || micros === undefined) return { holder };
    return { holder, fence: Number(seconds) * 1_000_000 + Number(micros) };
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

  /**
   * Whether instance `id` beats on time: its heartbeat was renewed within the last third of a
   * lease or so (two beats missed at most). An instance paused or dying is not, a little before
   * its heartbeat expires: it is given no new messages (see SessionRouter.claimLive).
   */
  async beatsOnTime(id: string): Promise<boolean> {
    const remainingMs = await this.redis.pttl(this.keys.instance(id));
    return remainingMs > this.leaseMs / 3;
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
