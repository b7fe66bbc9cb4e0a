/**
 * Leases after a stall: work that finds this instance's leases out of date (a pause,
 * a heartbeat slower than a lease on a loaded machine) confirms them before acting — also when
 * that work runs inside the heartbeat itself, as a take-over's hand-overs do. It once waited for
 * the heartbeat it was part of, and the instance's heartbeat stopped for good.
 */
import { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import { Coordinator, type InstanceInfo } from "../../src/cluster/coordinator.ts";
import type { Inbox } from "../../src/cluster/inbox.ts";
import { ClusterKeys } from "../../src/cluster/keys.ts";
import { SessionRouter } from "../../src/cluster/session-router.ts";
import { freshRedis } from "../support/redis-server.ts";
import { captureLog } from "../support/store.ts";
import { sleep } from "../support/wait.ts";

const LEASE_MS = 300;

describe("confirming leases after a stall", () => {
  const stops: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const stop of stops.splice(0)) await stop();
  });

  it("claims a session from a heartbeat task that ran longer than a lease", async () => {
    const { url, keyPrefix } = await freshRedis();
    const redis = new Redis(url);
    const { logger } = captureLog();
    const coordinator = new Coordinator(
      redis,
      new ClusterKeys(keyPrefix),
      "a",
      LEASE_MS,
      () => ({ id: "a", accounts: [], sessions: 0 }) as unknown as InstanceInfo,
      logger,
    );
    const fences: number[] = [];
    const router = new SessionRouter({
      coordinator,
      inbox: {} as Inbox, // nothing is handed on: the session is free
      ingest: () => {},
      forgetCached: () => {},
      busy: () => false,
      accountHere: () => true,
      advanceFence: async (_sessionId, fence) => {
        fences.push(fence);
      },
      logger,
    });
    stops.push(async () => {
      await coordinator.leave();
      redis.disconnect();
    });
    await coordinator.join();
    let claimed: Promise<string> | undefined;
    coordinator.onBeat(async () => {
      if (claimed) return;
      await sleep(2 * LEASE_MS); // a slow task: the leases are out of date when it goes on
      claimed = router.claimLive({ sessionId: "onebot:10000:group:20000" });
      await claimed;
    });
    await coordinator.beat();
    const holder = await Promise.race([claimed, sleep(5_000).then(() => "still waiting")]);
    expect(holder).toBe("a");
    expect(fences).toHaveLength(1);
    expect(router.fenceOf("onebot:10000:group:20000")).toBe(fences[0]);
  });
});
