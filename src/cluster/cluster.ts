import { hostname } from "node:os";
import type { ChatAdapter } from "../adapters/types.ts";
import type { Logger } from "../log/logger.ts";
import type { ChatMessage } from "../message/inbound.ts";
import type { LiveTimeline } from "../monitor/timeline.ts";
import type { FenceToken } from "../store/session-fence.ts";
import type { StorageStatus, TurnStore } from "../store/types.ts";
import { AccountRegistry, ClusterAdapter } from "./accounts.ts";
import { ClusterChannel } from "./channel.ts";
import type { ClusterSettings } from "./config.ts";
import { type ConfigAdopter, type ConfigNews, ConfigRelay } from "./config-relay.ts";
import { Coordinator, type InstanceInfo } from "./coordinator.ts";
import { DialLeases } from "./dial-leases.ts";
import { type EventNews, EventRelay } from "./event-relay.ts";
import { type Envelope, Inbox, type Recall, type RecoveryWork } from "./inbox.ts";
import { ClusterKeys } from "./keys.ts";
import { anotherConnection, connectRedis } from "./redis-client.ts";
import { ClusterSeal } from "./seal.ts";
import { SessionRouter } from "./session-router.ts";
import { PendingTriggers, Takeover } from "./takeover.ts";

export interface ClusterParts {
  settings: ClusterSettings;
  /** Where this instance's console listens, `host:port` (for the instance list). */
  address: () => string;
  /** The platform adapters of this instance (OneBot), by id; forward-ws ones are started by lease. */
  platformAdapters: ReadonlyMap<string, ChatAdapter>;
  /** Ids of the forward-ws adapters among them. */
  forwardAdapterIds: ReadonlySet<string>;
  /** Where a message routed to this instance enters the message path (at its store stage). */
  ingest(message: ChatMessage): void;
  /** Marks a message recalled on this instance (the store, batches waiting and turns running here). */
  recall(recall: Recall): void;
  forgetCached(sessionId: string): void;
  busy(sessionId: string): boolean;
  /** Turns a dead instance left running; where a new lease token is recorded (fencing). */
  turns: Pick<TurnStore, "running" | "advanceFence">;
  /** Settles a dead instance's turns and answers its pending triggers, in a session this instance owns. */
  recover(work: RecoveryWork): Promise<void>;
  storage: () => StorageStatus;
  /** Takes in config edits and plugin switches made on another instance. */
  adopt: ConfigAdopter;
  logger: Logger;
}

/** This instance as a member of a cluster (see docs/scale-out.md). */
export interface Cluster {
  readonly id: string;
  /** Redis and its keys, for values every instance shares (shared-limits.ts). */
  readonly shared: Pick<Coordinator, "redis" | "keys">;
  /** Where adapters deliver messages: taken in here or handed to the session's owner. */
  route(message: ChatMessage): void;
  /** Where adapters deliver recalls: marked here or by the session's owner, whose turns read it. */
  recalled(recall: Recall): void;
  /** Whether a turn of the session may run here (see SessionRouter.ensureOwned). */
  ensureOwned(origin: Pick<ChatMessage, "sessionId" | "adapterId" | "selfId">): Promise<boolean>;
  /** The fencing token of the session's lease while this instance holds it: a turn carries it to the store. */
  fenceOf(sessionId: string): FenceToken | undefined;
  /**
   * Work of a session this instance may no longer do (it lost the lease: a turn refused by the
   * store, a batch whose session another owns now) goes to the session's current owner, which
   * settles the turns and answers the triggers no turn has taken.
   */
  handOver(work: Omit<RecoveryWork, "from">): void;
  /** The adapter the rest of the bot uses: calls for accounts connected elsewhere go there. */
  adapter(local: ChatAdapter): ChatAdapter;
  /** A platform account connected to or disconnected from this instance. */
  accountChanged(adapterId: string, status: { selfId: string; connected: boolean }): void;
  /** A trigger the chat stage accepted (answered by another instance if this one dies first). */
  triggerAccepted(message: ChatMessage): void;
  /** A turn started or was refused with these triggers; they are no longer pending. */
  triggersSettled(sessionId: string, triggerIds: readonly string[]): void;
  /** Every live instance. */
  instances(): Promise<InstanceInfo[]>;
  /**
   * Whether another instance is taking (or took, within the last minute) this one's work over:
   * then that one settles its interrupted turns, not this instance restarted under the same name.
   */
  takenOver(): Promise<boolean>;
  /**
   * Publishes what `local` (this instance's timeline) stores to the other instances; returns
   * what the console follows live: `local`'s events and theirs, tagged with `instance`.
   */
  shareTimeline(local: LiveTimeline): LiveTimeline;
  /** A config this instance's console just saved, as an edit (see ConfigNews): every other instance adopts it. */
  configSaved(edit: string): void;
  /** A plugin or component the `/plugins` command switched here: every other instance follows. */
  pluginSwitched(ref: string, enabled: boolean): void;
  /** Starts the heartbeat, the inbox and forward-ws dialling by lease. */
  start(): Promise<void>;
  /** Lets go of sessions and dial leases and leaves; what is left is taken over by the others. */
  stop(): Promise<void>;
}

/** Connects to Redis (rejecting with a clear line when it cannot) and builds this instance's membership. */
export async function createCluster(parts: ClusterParts): Promise<Cluster> {
  const { settings, logger } = parts;
  const id =
    settings.instanceId ||
    `${hostname()
      .toLowerCase()
      .replace(/[^a-z0-9_-]/g, "-")
      .slice(0, 40)}-${process.pid}`;
  const log = logger.child({ instance: id });
  const redis = await connectRedis(settings.redisUrl, `tsumugi:${id}`, log);
  const reader = await anotherConnection(redis, "inbox", log);
  // Pub/sub (live events, config edits) needs a connection of its own.
  const subscriber = await anotherConnection(redis, "pub/sub", log);
  const keys = new ClusterKeys(settings.keyPrefix);
  // Signs what this instance sends and checks what it receives: only instances knowing the secret are heard.
  const seal = new ClusterSeal(settings.secret, log);
  const events = new EventRelay(
    new ClusterChannel<EventNews>(redis, subscriber, keys.events, id, seal, log),
    // Said again at every heartbeat (leaseMs / 3): a lost notice or two does not stop the events.
    settings.leaseMs,
    log,
  );
  const configs = new ConfigRelay(
    new ClusterChannel<ConfigNews>(redis, subscriber, keys.config, id, seal, log),
    parts.adopt,
    log,
  );
  const startedAt = Date.now();
  const localAccounts = () =>
    [...parts.platformAdapters.values()].flatMap((adapter) =>
      adapter
        .accounts()
        .filter((account) => account.connected)
        .map((account) => ({ adapterId: adapter.id, selfId: account.selfId })),
    );
  let router: SessionRouter | undefined;
  const coordinator = new Coordinator(
    redis,
    keys,
    id,
    settings.leaseMs,
    () => ({
      id,
      address: parts.address(),
      hostname: hostname(),
      pid: process.pid,
      startedAt,
      seenAt: Date.now(),
      accounts: localAccounts().map((account) => ({
        adapter: account.adapterId,
        selfId: account.selfId,
        connected: true,
      })),
      sessions: router?.ownedCount ?? 0,
      storage: parts.storage(),
    }),
    log,
    async () => (await parts.turns.running()).flatMap((turn) => (turn.instanceId ? [turn.instanceId] : [])),
  );
  const inbox = new Inbox(
    redis,
    reader,
    keys,
    id,
    seal,
    {
      get current() {
        return coordinator.leasesCurrent;
      },
      confirm: (): Promise<void> => sessions.confirmLeases(),
    },
    log,
  );
  const registry = new AccountRegistry(coordinator, localAccounts);
  router = new SessionRouter({
    coordinator,
    inbox,
    ingest: parts.ingest,
    recall: parts.recall,
    forgetCached: parts.forgetCached,
    busy: parts.busy,
    accountHere: (adapterId, selfId) =>
      localAccounts().some((account) => account.adapterId === adapterId && account.selfId === selfId),
    advanceFence: (sessionId, fence) => parts.turns.advanceFence(sessionId, fence),
    logger: log,
  });
  const sessions = router;
  const pending = new PendingTriggers(coordinator, seal, log);
  const takeover = new Takeover({
    coordinator,
    inbox,
    router,
    pending,
    turns: parts.turns,
    recover: parts.recover,
    logger: log,
  });
  const dialled = () =>
    [...parts.platformAdapters.values()].filter((adapter) => parts.forwardAdapterIds.has(adapter.id));
  const dials = new DialLeases(coordinator, dialled, log);
  const wrapped = new Map<string, ClusterAdapter>();

  const handle = async (envelope: Envelope): Promise<void> => {
    switch (envelope.type) {
      case "message":
        await sessions.route(envelope.message, envelope.hops);
        return;
      case "recall":
        await sessions.recall(envelope.recall, envelope.hops);
        return;
      case "recover":
        await takeover.dispatch(envelope.work);
        return;
      case "call": {
        const adapter = wrapped.get(envelope.adapterId);
        const result = adapter
          ? await adapter.serve(envelope).then(
              (value) => ({ value }),
              (error: unknown) => ({ error }),
            )
          : {
              error: Object.assign(new Error(`adapter ${envelope.adapterId} is not running here`), {
                notSent: true,
              }),
            };
        await inbox.answer(envelope, result);
        return;
      }
      case "answer":
        return;
    }
  };

  return {
    id,
    shared: { redis, keys },
    route: (message) => void sessions.route(message),
    recalled: (recall) => void sessions.recall(recall),
    ensureOwned: (origin) => sessions.ensureOwned(origin),
    fenceOf: (sessionId) => sessions.fenceOf(sessionId),
    handOver: (work) => {
      pending.settled(work.sessionId, work.triggerIds);
      takeover
        .dispatch({ ...work, from: id })
        .catch((error: unknown) =>
          log.error(
            { err: error, sessionId: work.sessionId, triggerIds: work.triggerIds },
            "could not hand a session's work to its owner",
          ),
        );
    },
    adapter: (local) => {
      const adapter = new ClusterAdapter(local, registry, inbox, id);
      wrapped.set(local.id, adapter);
      return adapter;
    },
    accountChanged: (adapterId, status) => {
      registry
        .changed(adapterId, status)
        .catch((error: unknown) =>
          log.warn({ err: error }, "could not record an account's connection in Redis"),
        );
    },
    triggerAccepted: (message) => pending.accepted(message),
    triggersSettled: (sessionId, triggerIds) => pending.settled(sessionId, triggerIds),
    instances: () => coordinator.instances(),
    takenOver: async () => (await redis.exists(keys.takeover(id))) === 1,
    shareTimeline: (local) => events.share(local),
    configSaved: (edit) => configs.publish({ edit }),
    pluginSwitched: (ref, enabled) => configs.publish({ plugin: ref, enabled }),
    start: async () => {
      coordinator.onBeat(() => sessions.beat());
      coordinator.onBeat(() => registry.beat());
      coordinator.onBeat(() => dials.beat());
      coordinator.onBeat(() => takeover.beat());
      coordinator.onBeat(() => events.beat());
      await coordinator.join();
      await Promise.all([events.start(), configs.start()]);
      await inbox.start(handle);
      // Triggers this instance's previous run accepted and never started (it restarted too fast
      // for the others to notice it was gone).
      for (const [sessionId, triggerIds] of await pending.takeFrom(id)) {
        await takeover.dispatch({ sessionId, replyIds: [], triggerIds, from: id });
      }
      await coordinator.beat();
      log.info({ leaseMs: settings.leaseMs }, "joined the cluster");
    },
    stop: async () => {
      await sessions.releaseAll();
      await dials.releaseAll();
      // What others post from now on waits in the inbox for whoever takes over what is left.
      await inbox.stop();
      await coordinator.leave();
      events.stop();
      reader.disconnect();
      subscriber.disconnect();
      redis.disconnect();
    },
  };
}
