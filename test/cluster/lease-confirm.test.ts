/**
 * Leases after a stall: work that finds this instance's leases out of date (a pause,
 * a heartbeat slower than a lease on a loaded machine) confirms them before acting — also when
 * that work runs inside the heartbeat itself, as a take-over's hand-overs do. It once waited for
 * the heartbeat it was part of, and the instance's heartbeat stopped for good.
 *
 * A claim's fencing token, recorded in the store before the session is owned: a store that
 * did not answer in time (the instance was paused while it waited) once left the session's
 * turns without a token, so the woken instance ran them unfenced; and a claim overtaken by a
 * newer holder's token was owned all the same.
 */
import { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import { Coordinator, type InstanceInfo } from "../../src/cluster/coordinator.ts";
import type { Inbox } from "../../src/cluster/inbox.ts";
import { ClusterKeys } from "../../src/cluster/keys.ts";
import { SessionRouter, type SessionRouterDeps } from "../../src/cluster/session-router.ts";
import { SessionFenced } from "../../src/store/session-fence.ts";
import { freshRedis } from "../support/redis-server.ts";
import { captureLog } from "../support/store.ts";
import { sleep } from "../support/wait.ts";

const LEASE_MS = 300;

const SESSION = "onebot:10000:group:20000";

describe("confirming leases after a stall", () => {
  const stops: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const stop of stops.splice(0)) await stop();
  });

  /** Instance "a" on a Redis of its own, its sessions' tokens recorded by `advanceFence`. */
  async function instanceA(advanceFence: SessionRouterDeps["advanceFence"]) {
    const { url, keyPrefix } = await freshRedis();
    const redis = new Redis(url);
    const { logger, lines } = captureLog();
    const coordinator = new Coordinator(
      redis,
      new ClusterKeys(keyPrefix),
      "a",
      LEASE_MS,
      () => ({ id: "a", accounts: [], sessions: 0 }) as unknown as InstanceInfo,
      logger,
    );
    const router = new SessionRouter({
      coordinator,
      inbox: {} as Inbox, // nothing is handed on: the session is free
      ingest: () => {},
      recall: () => {},
      forgetCached: () => {},
      busy: () => false,
      accountHere: () => true,
      advanceFence,
      logger,
    });
    stops.push(async () => {
      await coordinator.leave();
      redis.disconnect();
    });
    await coordinator.join();
    return { coordinator, router, lines };
  }

  it("claims a session from a heartbeat task that ran longer than a lease", async () => {
    const fences: number[] = [];
    const { coordinator, router } = await instanceA(async (_sessionId, fence) => {
      fences.push(fence);
    });
    let claimed: Promise<string> | undefined;
    coordinator.onBeat(async () => {
      if (claimed) return;
      await sleep(2 * LEASE_MS); // a slow task: the leases are out of date when it goes on
      claimed = router.claimLive({ sessionId: SESSION });
      await claimed;
    });
    await coordinator.beat();
    const holder = await Promise.race([claimed, sleep(5_000).then(() => "still waiting")]);
    expect(holder).toBe("a");
    expect(fences).toHaveLength(1);
    expect(router.fenceOf(SESSION)).toBe(fences[0]);
  });

  it("keeps the claim's token for the session's turns when the store does not answer in time", async () => {
    const fences: number[] = [];
    const { router, lines } = await instanceA(async (_sessionId, fence) => {
      fences.push(fence);
      throw new Error("timeout exceeded when trying to connect");
    });
    expect(await router.claimLive({ sessionId: SESSION })).toBe("a");
    expect(fences).toHaveLength(1);
    expect(router.fenceOf(SESSION)).toBe(fences[0]);
    expect(lines.some((line) => String(line.msg).includes("run unfenced"))).toBe(false);
  });

  it("claims again when the store holds a newer token than the claim's", async () => {
    const fences: number[] = [];
    const { router } = await instanceA(async (sessionId, fence) => {
      fences.push(fence);
      // The first claim was overtaken while this instance was paused: another's token is newer.
      if (fences.length === 1) throw new SessionFenced(sessionId, fence);
    });
    expect(await router.claimLive({ sessionId: SESSION })).toBe("a");
    expect(fences).toHaveLength(2);
    expect(fences[1]).toBeGreaterThan(fences[0]!);
    expect(router.fenceOf(SESSION)).toBe(fences[1]);
  });
});
