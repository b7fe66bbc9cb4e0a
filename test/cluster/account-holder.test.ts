/**
 * Where an instance sends for an account whose connection moved to another instance while it
 * was paused (SIGSTOP, a hung VM): its last read of the account keys, and its own socket, still
 * name itself. It must send through the instance holding the connection now, and its heartbeat
 * must not take the account back from it.
 */
import { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import type { AccountStatus, ChatAdapter, SendTarget } from "../../src/adapters/types.ts";
import { AccountRegistry, ClusterAdapter } from "../../src/cluster/accounts.ts";
import { Coordinator, type InstanceInfo } from "../../src/cluster/coordinator.ts";
import { Inbox } from "../../src/cluster/inbox.ts";
import { ClusterKeys } from "../../src/cluster/keys.ts";
import { ClusterSeal } from "../../src/cluster/seal.ts";
import { CLUSTER_SECRET, freshRedis } from "../support/redis-server.ts";
import { captureLog } from "../support/store.ts";

const LEASE_MS = 1_000;
const ACCOUNT = "10001";
const TARGET: SendTarget = {
  selfId: ACCOUNT,
  chatType: "group",
  peerId: "20000",
  sessionId: `onebot:${ACCOUNT}:group:20000`,
};

/** This instance's own OneBot connection of the account, as it believes it to be. */
class LocalConnection implements ChatAdapter {
  readonly id = "onebot";
  readonly platform = "onebot";
  sends = 0;
  constructor(public connected: boolean) {}
  async start(): Promise<void> {}
  async stop(): Promise<void> {}
  accounts(): AccountStatus[] {
    return [{ selfId: ACCOUNT, connected: this.connected }];
  }
  async send(): Promise<{ messageId: string }> {
    this.sends++;
    if (!this.connected)
      throw Object.assign(new Error(`no open API connection for self id ${ACCOUNT}`), { notSent: true });
    return { messageId: "sent-here" };
  }
  async callAction(): Promise<unknown> {
    throw new Error("not called");
  }
}

interface Member {
  coordinator: Coordinator;
  registry: AccountRegistry;
  inbox: Inbox;
}

describe("an instance woken after its account moved to another instance", () => {
  const stops: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const stop of stops.splice(0)) await stop();
  });

  async function member(id: string, local: LocalConnection, url: string, keys: ClusterKeys): Promise<Member> {
    const redis = new Redis(url);
    const reader = new Redis(url);
    const { logger } = captureLog();
    const coordinator = new Coordinator(
      redis,
      keys,
      id,
      LEASE_MS,
      () => ({ id, accounts: [], sessions: 0 }) as unknown as InstanceInfo,
      logger,
    );
    const localAccounts = () =>
      local
        .accounts()
        .flatMap((account) => (account.connected ? [{ adapterId: local.id, selfId: account.selfId }] : []));
    const registry = new AccountRegistry(coordinator, localAccounts);
    const inbox = new Inbox(
      redis,
      reader,
      keys,
      id,
      new ClusterSeal(CLUSTER_SECRET, logger),
      { current: true, confirm: async () => {} },
      logger,
    );
    const adapter = new ClusterAdapter(local, registry, inbox, id);
    await inbox.start(async (envelope) => {
      if (envelope.type === "call") await inbox.answer(envelope, { value: await adapter.serve(envelope) });
    });
    stops.push(async () => {
      await inbox.stop();
      redis.disconnect();
      reader.disconnect();
    });
    return { coordinator, registry, inbox };
  }

  /** a held the account and read so; then it paused, and the account connected to b. */
  async function accountMovedWhileAPaused(aConnection: LocalConnection) {
    const { url, keyPrefix } = await freshRedis();
    const keys = new ClusterKeys(keyPrefix);
    const a = await member("a", aConnection, url, keys);
    const bConnection = new LocalConnection(true);
    const b = await member("b", bConnection, url, keys);
    await a.registry.changed("onebot", { selfId: ACCOUNT, connected: true });
    await b.registry.changed("onebot", { selfId: ACCOUNT, connected: true });
    const adapter = new ClusterAdapter(aConnection, a.registry, a.inbox, "a");
    return { a, b, keys, adapter, bConnection, redis: a.coordinator.redis };
  }

  it("sends through the instance holding the connection now, its own socket already closed", async () => {
    const aConnection = new LocalConnection(false);
    const { adapter, bConnection } = await accountMovedWhileAPaused(aConnection);

    await expect(adapter.send(TARGET, [{ type: "text", data: { text: "早" } }])).resolves.toEqual({
      messageId: "sent-here",
    });
    expect(bConnection.sends).toBe(1);
    expect(aConnection.sends).toBe(0);
  });

  it("sends through the instance holding the connection now, its own socket not yet seen closed", async () => {
    const aConnection = new LocalConnection(true);
    const { adapter, bConnection } = await accountMovedWhileAPaused(aConnection);

    await adapter.send(TARGET, [{ type: "text", data: { text: "早" } }]);
    expect(bConnection.sends).toBe(1);
    expect(aConnection.sends).toBe(0);
  });

  it("does not take the account back at its next heartbeat", async () => {
    const aConnection = new LocalConnection(true);
    const { a, keys, redis } = await accountMovedWhileAPaused(aConnection);

    await a.registry.beat();
    expect(await redis.get(keys.account("onebot", ACCOUNT))).toBe("b");
  });
});
