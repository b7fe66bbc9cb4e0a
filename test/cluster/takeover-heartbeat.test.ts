/**
 * A take-over slower than a lease: handing a dead instance's sessions over costs database
 * queries per session, which on a loaded machine add up to many seconds. The heartbeat once
 * waited for it, so the taker's own heartbeat lapsed meanwhile: the others saw it dead and took
 * over its sessions in turn (the scale-out bench's freeze scene answered almost nothing).
 * A take-over that fails (the database restarting) once kept its lock for a minute before it
 * was tried again: the dead instance's triggers waited that long.
 * An instance that died before the taker's first heartbeat saw it join was forgotten for good
 * when Redis then lost its data: its turn stayed running and its trigger was never answered.
 * A session whose hand-over failed (the database failing meanwhile) lost the dead instance's
 * triggers in it, which had been deleted from Redis as they were read.
 */
import { afterEach, describe, expect, it } from "vitest";
import { Coordinator, type InstanceInfo } from "../../src/cluster/coordinator.ts";
import { Inbox, type RecoveryWork } from "../../src/cluster/inbox.ts";
import { ClusterKeys } from "../../src/cluster/keys.ts";
import { anotherConnection, connectRedis } from "../../src/cluster/redis-client.ts";
import { ClusterSeal } from "../../src/cluster/seal.ts";
import { SessionRouter } from "../../src/cluster/session-router.ts";
import { PendingTriggers, Takeover, type TakeoverDeps } from "../../src/cluster/takeover.ts";
import type { TurnRecord } from "../../src/store/types.ts";
import { CLUSTER_SECRET, freshRedis, startRedisServer } from "../support/redis-server.ts";
import { captureLog } from "../support/store.ts";
import { Gate, sleep, waitFor } from "../support/wait.ts";

/** Short, yet long enough that a loaded machine's timers do not let it lapse between beats. */
const LEASE_MS = 1_000;
const SESSION = "onebot:10000:group:20000";
const runningOnA = { instanceId: "a", sessionId: SESSION, replyId: "turn-a" } as TurnRecord;

describe("taking over a dead instance's work", () => {
  const stops: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const stop of stops.splice(0)) await stop();
  });

  /**
   * Instance b over a fresh Redis (or `target`), beating, with instance a listed as a member that
   * stopped (unless `listed` is false): b takes over a's work at its first heartbeat, reading a's
   * running turns with `running`.
   */
  async function takerOfA(
    deps: Pick<TakeoverDeps, "turns" | "recover">,
    {
      target,
      listed = true,
      pendingOfA,
    }: {
      target?: { url: string; keyPrefix: string };
      listed?: boolean;
      /** Triggers a had accepted and not started, by session. */
      pendingOfA?: Map<string, string[]>;
    } = {},
  ) {
    const { url, keyPrefix } = target ?? (await freshRedis());
    const keys = new ClusterKeys(keyPrefix);
    const log = captureLog();
    const { logger } = log;
    // The bot's own client settings: a command fails at once while Redis is away.
    const redis = await connectRedis(url, "b", logger);
    const reader = await anotherConnection(redis, "inbox", logger);
    const coordinator = new Coordinator(
      redis,
      keys,
      "b",
      LEASE_MS,
      () => ({ id: "b", accounts: [], sessions: 0 }) as unknown as InstanceInfo,
      logger,
      async () => (await deps.turns.running()).flatMap((turn) => (turn.instanceId ? [turn.instanceId] : [])),
    );
    const seal = new ClusterSeal(CLUSTER_SECRET, logger);
    const inbox = new Inbox(
      redis,
      reader,
      keys,
      "b",
      seal,
      { current: true, confirm: async () => {} },
      logger,
    );
    const router = new SessionRouter({
      coordinator,
      inbox,
      ingest: () => {},
      recall: () => {},
      forgetCached: () => {},
      busy: () => false,
      accountHere: () => true,
      advanceFence: async () => {},
      logger,
    });
    const takeover = new Takeover({
      coordinator,
      inbox,
      router,
      pending: new PendingTriggers(coordinator, seal, logger),
      logger,
      ...deps,
    });
    coordinator.onBeat(() => router.beat());
    coordinator.onBeat(() => takeover.beat());
    stops.push(async () => {
      await coordinator.leave();
      redis.disconnect();
      reader.disconnect();
    });
    if (listed) await redis.sadd(keys.instances, "a");
    if (pendingOfA) await new PendingTriggers(coordinator, seal, logger).restore("a", pendingOfA);
    await coordinator.join();
    return { redis, keys, coordinator, router, log };
  }

  it("keeps the taker's heartbeat going while a session's hand-over takes longer than a lease", async () => {
    // Instance a died in the middle of a turn; settling it here waits on a slow database.
    const database = new Gate();
    stops.push(async () => database.open());
    const recovered: RecoveryWork[] = [];
    const { redis, keys, coordinator, router } = await takerOfA({
      turns: { running: async () => [runningOnA] },
      recover: async (work) => {
        await database.opened;
        recovered.push(work);
      },
    });

    // The take-over begins at the first heartbeat and waits on the database for four leases.
    await waitFor(() => router.owns(SESSION), 5_000, "the dead instance's session to be claimed");
    for (let lease = 0; lease < 4; lease++) {
      await sleep(LEASE_MS);
      expect(await redis.exists(keys.instance("b"))).toBe(1);
      expect(await coordinator.holder(keys.session(SESSION))).toBe("b");
    }
    database.open();
    await waitFor(() => recovered.length === 1, 5_000, "the turn to be settled");
    expect(recovered[0]).toMatchObject({ sessionId: SESSION, replyIds: ["turn-a"], from: "a" });
    await waitFor(async () => (await redis.sismember(keys.instances, "a")) === 0, 5_000, "a to be forgotten");
  });

  it("tries a take-over that failed again at the next heartbeat, not a minute later", async () => {
    // The database does not answer when b first reads a's running turns (it is restarting).
    let databaseUp = false;
    const recovered: RecoveryWork[] = [];
    const { redis, keys, log } = await takerOfA({
      turns: {
        running: async () => {
          if (!databaseUp) throw new Error("connect ECONNREFUSED 127.0.0.1:5432");
          return [runningOnA];
        },
      },
      recover: async (work) => {
        recovered.push(work);
      },
    });
    const failures = () =>
      log.lines.filter((line) =>
        String(line.msg).startsWith("could not take over the work of an instance that stopped"),
      );
    await waitFor(() => failures().length === 1, 5_000, "the failed take-over to be logged");
    await sleep(3 * LEASE_MS); // several heartbeats fail meanwhile: still one line

    databaseUp = true;
    const backAt = Date.now();
    await waitFor(() => recovered.length === 1, 3 * LEASE_MS, "the turn to be settled soon after");
    expect(Date.now() - backAt).toBeLessThan(3 * LEASE_MS);
    expect(recovered[0]).toMatchObject({ sessionId: SESSION, replyIds: ["turn-a"], from: "a" });
    expect(failures()).toHaveLength(1);
    await waitFor(async () => (await redis.sismember(keys.instances, "a")) === 0, 5_000, "a to be forgotten");
  });

  it("waits four leases after Redis restarted empty before taking over an instance, also when its own heartbeat failed meanwhile", async () => {
    const server = await startRedisServer();
    stops.push(() => server.stop());
    // a is alive when b joins: its heartbeat has a minute left.
    const recovered: RecoveryWork[] = [];
    const { keys, log } = await takerOfA(
      {
        turns: { running: async () => [runningOnA] },
        recover: async (work) => {
          recovered.push(work);
        },
      },
      { target: { url: server.url, keyPrefix: "grace" } },
    );
    const seeded = await connectRedis(server.url, "a", log.logger);
    await seeded.set(keys.instance("a"), "{}", "PX", 60_000);
    seeded.disconnect();
    const logged = (text: string) => log.lines.some((line) => String(line.msg).startsWith(text));

    // Redis goes away long enough for b's heartbeat to fail, and comes back empty. a, which may
    // be alive and still reconnecting, gets four leases to re-join before it is taken over.
    await server.stop();
    await waitFor(() => logged("cluster heartbeat failed"), 5_000, "b's heartbeat to fail");
    const again = await startRedisServer({ port: server.port });
    stops.push(() => again.stop());
    await waitFor(() => logged("Redis lost its data"), 10_000, "b to notice that Redis lost its data");
    const noticedAt = Date.now();
    await waitFor(() => recovered.length === 1, 8 * LEASE_MS, "a's turn to be taken over");
    expect(Date.now() - noticedAt).toBeGreaterThanOrEqual(4 * LEASE_MS - 100);
  });

  it("takes over an instance it never saw listed when Redis loses its data: the database names it", async () => {
    // a died mid-turn before b's first heartbeat listed it; then Redis loses its data.
    const recovered: RecoveryWork[] = [];
    const { redis, keys, log } = await takerOfA(
      {
        turns: { running: async () => [runningOnA] },
        recover: async (work) => {
          recovered.push(work);
        },
      },
      { listed: false },
    );
    const scope = keys.instances.slice(0, -"instances".length);
    const lostAt = Date.now();
    const lost = await redis.keys(`${scope}*`);
    expect(lost).toContain(keys.dataKept);
    await redis.del(...lost);

    // Every live instance gets four leases to re-join first; then a's turn is b's to settle.
    await waitFor(() => recovered.length === 1, 8 * LEASE_MS, "a's running turn to be handed to b");
    expect(Date.now() - lostAt).toBeGreaterThanOrEqual(4 * LEASE_MS);
    expect(recovered[0]).toMatchObject({ sessionId: SESSION, replyIds: ["turn-a"], from: "a" });
    const relisted = log.lines.find((line) => String(line.msg).startsWith("Redis lost its data"));
    expect(relisted?.instances).toEqual(["b", "a"]);
  });

  it("tries again the hand-over of a session that failed, with its triggers, and hands the others over once", async () => {
    const OTHER = "onebot:10000:group:20001";
    const recovered: RecoveryWork[] = [];
    let failOther = true;
    const { redis, keys, log } = await takerOfA(
      {
        turns: {
          running: async () => [runningOnA, { ...runningOnA, sessionId: OTHER, replyId: "turn-a2" }],
        },
        recover: async (work) => {
          if (work.sessionId === OTHER && failOther) {
            failOther = false;
            throw new Error("Connection terminated unexpectedly");
          }
          recovered.push(work);
        },
      },
      { pendingOfA: new Map([[OTHER, ["m-7"]]]) },
    );
    await waitFor(
      () => recovered.some((work) => work.sessionId === OTHER),
      5_000,
      "the failed session to be handed over on a later try",
    );
    await waitFor(async () => (await redis.sismember(keys.instances, "a")) === 0, 5_000, "a to be forgotten");
    // Each session once; the one that failed with the trigger a had accepted in it.
    expect(recovered.map((work) => work.sessionId).sort()).toEqual([SESSION, OTHER]);
    expect(recovered.find((work) => work.sessionId === OTHER)).toMatchObject({
      replyIds: ["turn-a2"],
      triggerIds: ["m-7"],
    });
    expect(
      log.lines.filter((line) => String(line.msg).startsWith("could not hand over a session")),
    ).toHaveLength(1);
    expect(await redis.exists(keys.handedOver("a"))).toBe(0);
  });
});
