import type {
  AccountStatus,
  ActionOptions,
  ChatAdapter,
  GroupActions,
  SendTarget,
} from "../adapters/types.ts";
import type { Segment } from "../message/segment.ts";
import type { Coordinator } from "./coordinator.ts";
import type { AdapterCall, Envelope, Inbox } from "./inbox.ts";

/** How long a remote call waits when the caller gave no timeout (the platform's own default is near it). */
const DEFAULT_CALL_TIMEOUT_MS = 30_000;

/**
 * Which instance holds the connection of each platform account: `account:<adapter>:<selfId>`
 * names it while it is connected there, renewed with the heartbeat. The newest connection
 * wins when an implementation reconnects to another instance before the old socket closed:
 * a connection sets the key, a heartbeat only renews it while it names this instance (or
 * takes it when nobody holds it), so an instance waking from a pause, its old socket not yet
 * seen closed, does not take the account back from the instance it moved to.
 */
export class AccountRegistry {
  /** adapter id → self id → holding instance, as last read. */
  #holders = new Map<string, Map<string, string>>();

  constructor(
    private readonly coordinator: Coordinator,
    /** The accounts connected to this instance now. */
    private readonly localAccounts: () => Array<{ adapterId: string; selfId: string }>,
  ) {}

  /** An account connected here or disconnected. */
  async changed(adapterId: string, status: AccountStatus): Promise<void> {
    const { redis, keys, id, leaseMs } = this.coordinator;
    const key = keys.account(adapterId, status.selfId);
    if (status.connected) await redis.set(key, id, "PX", leaseMs);
    else await this.coordinator.release(key);
    await this.refresh();
  }

  /** Heartbeat: renews this instance's accounts (unless a newer connection took one) and reads everyone's. */
  async beat(): Promise<void> {
    const { keys } = this.coordinator;
    await Promise.all(
      this.localAccounts().map((account) =>
        this.coordinator.claim(keys.account(account.adapterId, account.selfId)),
      ),
    );
    await this.refresh();
  }

  /** Whether what this instance knows is recent: false after a pause or a Redis outage (Coordinator.leasesCurrent). */
  get current(): boolean {
    return this.coordinator.leasesCurrent;
  }

  /** The instance holding the account's connection, as last read. */
  holder(adapterId: string, selfId: string): string | undefined {
    return this.#holders.get(adapterId)?.get(selfId);
  }

  /** The instance holding the account's connection, read from Redis now (as last read when Redis does not answer). */
  async holderNow(adapterId: string, selfId: string): Promise<string | undefined> {
    const { keys } = this.coordinator;
    let holder: string | null;
    try {
      holder = await this.coordinator.holder(keys.account(adapterId, selfId));
    } catch {
      return this.holder(adapterId, selfId);
    }
    const holders = this.#holders.get(adapterId) ?? new Map<string, string>();
    if (holder === null) holders.delete(selfId);
    else holders.set(selfId, holder);
    this.#holders.set(adapterId, holders);
    return holder ?? undefined;
  }

  /** Accounts of `adapterId` connected to other instances. */
  remote(adapterId: string): string[] {
    const holders = this.#holders.get(adapterId);
    if (!holders) return [];
    return [...holders].filter(([, holder]) => holder !== this.coordinator.id).map(([selfId]) => selfId);
  }

  async refresh(): Promise<void> {
    const { redis, keys } = this.coordinator;
    const pattern = keys.account("*", "*");
    const found: string[] = [];
    let cursor = "0";
    do {
      const [next, batch] = await redis.scan(cursor, "MATCH", pattern, "COUNT", 500);
      found.push(...batch);
      cursor = next;
    } while (cursor !== "0");
    const values = found.length === 0 ? [] : await redis.mget(found);
    const prefix = keys.account("", "").slice(0, -1);
    const holders = new Map<string, Map<string, string>>();
    found.forEach((key, index) => {
      const holder = values[index];
      if (!holder) return;
      const rest = key.slice(prefix.length);
      const split = rest.lastIndexOf(":");
      const adapterId = rest.slice(0, split);
      const selfId = rest.slice(split + 1);
      if (!holders.has(adapterId)) holders.set(adapterId, new Map());
      holders.get(adapterId)!.set(selfId, holder);
    });
    this.#holders = holders;
  }
}

/**
 * A platform adapter as the rest of the bot sees it in a cluster: calls for an account
 * connected here go straight to the connection; calls for an account connected to another
 * instance go there through its inbox and come back with the answer. So the instance that owns
 * a session can reply even while the account's connection lands elsewhere.
 */
export class ClusterAdapter implements ChatAdapter {
  readonly id: string;
  readonly platform: string;

  constructor(
    private readonly local: ChatAdapter,
    private readonly registry: AccountRegistry,
    private readonly inbox: Inbox,
    private readonly self: string,
  ) {
    this.id = local.id;
    this.platform = local.platform;
    // Group management uses the account's connection on this instance (docs/manage.md, Platforms).
    if (local.groups) this.groups = local.groups;
  }

  readonly groups?: GroupActions;

  start(): Promise<void> {
    return this.local.start();
  }

  stop(): Promise<void> {
    return this.local.stop();
  }

  /** Accounts connected here, then those connected to other instances (reachable through them). */
  accounts(): AccountStatus[] {
    const local = this.local.accounts();
    const connectedHere = new Set(
      local.filter((account) => account.connected).map((account) => account.selfId),
    );
    const elsewhere = this.registry.remote(this.id).filter((selfId) => !connectedHere.has(selfId));
    return [
      ...local.filter((account) => account.connected || !elsewhere.includes(account.selfId)),
      ...elsewhere.map((selfId) => ({ selfId, connected: true })),
    ];
  }

  async send(
    target: SendTarget,
    segments: Segment[],
    options?: ActionOptions,
  ): Promise<{ messageId: string }> {
    const holder = await this.#remoteHolder(target.selfId);
    if (holder === undefined) return this.local.send(target, segments, options);
    const answer = await this.#call(holder, target.selfId, { op: "send", target, segments }, options);
    return answer as { messageId: string };
  }

  async callAction(
    selfId: string,
    action: string,
    params: Record<string, unknown>,
    options?: ActionOptions,
  ): Promise<unknown> {
    const holder = await this.#remoteHolder(selfId);
    if (holder === undefined) return this.local.callAction(selfId, action, params, options);
    return this.#call(holder, selfId, { op: "action", action, params }, options);
  }

  /** Runs a call another instance made for an account connected here. */
  serve(envelope: Extract<Envelope, { type: "call" }>): Promise<unknown> {
    const { call, selfId, timeoutMs } = envelope;
    return call.op === "send"
      ? this.local.send(call.target, call.segments, { timeoutMs })
      : this.local.callAction(selfId, call.action, call.params, { timeoutMs });
  }

  /**
   * The other instance to call for `selfId`, or undefined to use the local connection. What was
   * last read is trusted while it is recent and names a connection that can be used; otherwise
   * Redis is asked: the account may have moved to another instance while this one was paused
   * (its socket here dead and not yet seen closed, or already closed while the last read still
   * names this instance).
   */
  async #remoteHolder(selfId: string): Promise<string | undefined> {
    const connectedHere = this.local
      .accounts()
      .some((account) => account.selfId === selfId && account.connected);
    const known = this.registry.holder(this.id, selfId);
    const elsewhere = known !== undefined && known !== this.self;
    if (this.registry.current && (connectedHere || elsewhere)) return connectedHere ? undefined : known;
    const holder = await this.registry.holderNow(this.id, selfId);
    return holder === undefined || holder === this.self ? undefined : holder;
  }

  #call(holder: string, selfId: string, call: AdapterCall, options?: ActionOptions): Promise<unknown> {
    return this.inbox.call(holder, this.id, selfId, call, options?.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS);
  }
}
