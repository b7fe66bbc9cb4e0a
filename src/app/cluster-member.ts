import { isForwardWs } from "../adapters/config.ts";
import type { ChatAdapter } from "../adapters/types.ts";
import type { TurnRunnerDeps } from "../agent/turn-runner.ts";
import type { Batch } from "../chat/batch.ts";
import { budgetsSet } from "../chat/budgets.ts";
import { systemClock } from "../chat/clock.ts";
import { type DeliveryLedger, LocalDeliveryLedger } from "../chat/delivery-ledger.ts";
import { SlidingWindowCounter, type TurnWindows } from "../chat/rate-limiter.ts";
import { PeriodSpendingTally, type SpendingTallies } from "../chat/spending.ts";
import { TURN_WINDOW_MS } from "../chat/turn-limits.ts";
import { type Cluster, type ClusterParts, createCluster } from "../cluster/cluster.ts";
import { SharedDeliveryLedger } from "../cluster/shared-deliveries.ts";
import { type SharedLimitParts, sharedLimits } from "../cluster/shared-limits.ts";
import type { TsumugiConfig } from "../config/schema.ts";
import type { Logger } from "../log/logger.ts";
import type { MonitorHub } from "../monitor/monitor.ts";
import type { MessageStore } from "../store/types.ts";

/**
 * This instance's membership of a cluster (`cluster.redisUrl`; docs/scale-out.md), or undefined
 * when it works alone. Connects to Redis, so a wrong url stops start-up with one clear line.
 */
export async function joinCluster(
  config: TsumugiConfig,
  parts: Omit<ClusterParts, "settings" | "forwardAdapterIds">,
): Promise<Cluster | undefined> {
  if (config.cluster.redisUrl === "") return undefined;
  const forwardAdapterIds = new Set(config.adapters.filter(isForwardWs).map((adapter) => adapter.id));
  return createCluster({ ...parts, settings: config.cluster, forwardAdapterIds });
}

/** Events after which their `triggerIds` will not be answered here: trimmed or refused. */
const DROPPING_TRIGGERS = new Set(["batch.trimmed", "limit.reached", "access.denied"]);

/**
 * Keeps each accepted trigger pending in Redis (answered by another instance if this one dies)
 * until a turn takes it — once the turn's start is committed, so a take-over finds the turn
 * instead — or it is trimmed or refused. Returns what the turn runner needs for that and for
 * fencing: this instance's id (recorded on each turn), the hook a committed start calls, the
 * lease token a turn carries, and where a turn the store refused goes (the session's owner).
 */
export function clusterTurns(
  cluster: Cluster,
  monitor: MonitorHub,
): Pick<TurnRunnerDeps, "instanceId" | "triggersTaken" | "fenceOf" | "handOver"> {
  monitor.subscribe((event) => {
    if (event.sessionId === undefined || !DROPPING_TRIGGERS.has(event.type)) return;
    cluster.triggersSettled(event.sessionId, (event.data.triggerIds as string[] | undefined) ?? []);
  });
  return {
    instanceId: cluster.id,
    triggersTaken: (batch) => cluster.triggersSettled(batch.sessionId, batch.triggerIds),
    fenceOf: (sessionId) => cluster.fenceOf(sessionId),
    handOver: (work) => cluster.handOver(work),
  };
}

/**
 * Whether this instance may run the batch's turn: it owns (or takes) the session. Console and
 * stdio chats are this instance's own, whatever their session id. When another instance owns
 * the session (it took it while this one was paused), the batch's triggers go to it.
 */
export async function mayRunHere(
  cluster: Cluster,
  platformAdapters: ReadonlyMap<string, ChatAdapter>,
  batch: Batch,
): Promise<boolean> {
  const origin = batch.requestedBy ?? batch.messages[0];
  if (origin === undefined || !platformAdapters.has(origin.adapterId)) return true;
  if (await cluster.ensureOwned(origin)) return true;
  if (batch.triggerIds.length > 0)
    cluster.handOver({ sessionId: batch.sessionId, replyIds: [], triggerIds: batch.triggerIds });
  return false;
}

/**
 * What `limits.*` count with: today's tokens and turns per minute, in Redis for the whole
 * cluster, else in this process (tokens read from the usage store once a day).
 */
export function limitCounters(
  cluster: Cluster | undefined,
  parts: Omit<SharedLimitParts, "redis" | "keys" | "time" | "budgets">,
  config: () => TsumugiConfig,
): { turns: TurnWindows; spending: SpendingTallies } {
  const budgets = () => budgetsSet(config().limits);
  if (cluster) return sharedLimits({ ...cluster.shared, ...parts, time: systemClock, budgets });
  return {
    turns: new SlidingWindowCounter(TURN_WINDOW_MS),
    spending: {
      day: new PeriodSpendingTally("day", parts.store, parts.clock, systemClock),
      month: new PeriodSpendingTally("month", parts.store, parts.clock, systemClock),
    },
  };
}

/** Which message events were taken in already: in Redis for the whole cluster, else in this process and the store. */
export function deliveryLedger(
  cluster: Cluster | undefined,
  store: Pick<MessageStore, "findByMessageId">,
  logger: Logger,
): DeliveryLedger {
  if (cluster) return new SharedDeliveryLedger({ ...cluster.shared, logger });
  return new LocalDeliveryLedger(store, logger);
}

/**
 * Starts the platform adapters, except, in a cluster, forward-ws ones: those are dialled by the
 * one instance holding each one's lease (src/cluster/dial-leases.ts).
 */
export async function startAdapters(
  adapters: Iterable<ChatAdapter>,
  config: TsumugiConfig,
  cluster: Cluster | undefined,
): Promise<void> {
  const dialledByLease = new Set(cluster ? config.adapters.filter(isForwardWs).map((entry) => entry.id) : []);
  for (const adapter of adapters) if (!dialledByLease.has(adapter.id)) await adapter.start();
}
