import type { ChatAdapter } from "../adapters/types.ts";
import type { TurnRunner } from "../agent/turn-runner.ts";
import type { Batch, OmittedMessages } from "../chat/batch.ts";
import type { BatchBounds } from "../chat/batch-bounds.ts";
import { systemClock } from "../chat/clock.ts";
import type { DigestSettings, RealtimeSettings } from "../chat/config.ts";
import { DigestScheduler } from "../chat/digest-scheduler.ts";
import type { KeyedQueue } from "../chat/keyed-queue.ts";
import { RealtimeBatcher } from "../chat/realtime-batcher.ts";
import { SessionRunner } from "../chat/session-runner.ts";
import type { TurnLimits } from "../chat/turn-limits.ts";
import type { Cluster } from "../cluster/cluster.ts";
import type { Logger } from "../log/logger.ts";
import type { Monitor } from "../monitor/monitor.ts";
import { mayRunHere } from "./cluster-member.ts";

/**
 * The two ways messages become batches — realtime windows for triggers, digests for chatter —
 * each handing its batches to the session runner and putting them on the timeline.
 */
export function createBatchers(parts: {
  realtime: () => RealtimeSettings;
  digest: () => DigestSettings;
  sessions: SessionRunner;
  monitor: Monitor;
}): { batcher: RealtimeBatcher; digests: DigestScheduler } {
  const { sessions, monitor } = parts;
  const flushed = (batch: Batch, reason: string) =>
    monitor.emit({
      type: "batch.flushed",
      sessionId: batch.sessionId,
      data: { kind: batch.kind, reason, messageIds: batch.messages.map((m) => m.messageId) },
    });
  const batcher = new RealtimeBatcher(parts.realtime, systemClock, (batch, reason) => {
    flushed(batch, reason);
    sessions.submit(batch);
  });
  const digests = new DigestScheduler(parts.digest, systemClock, (batch, reason) => {
    flushed(batch, reason);
    sessions.submitAlone(batch);
  });
  return { batcher, digests };
}

/**
 * Where batches become turns, one at a time per session. A turn runs only where this instance
 * owns its session (in a cluster) and once the limits admit it — checked as it is about to
 * start, so batches merged while a session was busy count once.
 */
export function createSessions(parts: {
  queue: KeyedQueue;
  cluster: Cluster | undefined;
  /** This instance's OneBot connections: other chats are always this instance's own. */
  platformAdapters: ReadonlyMap<string, ChatAdapter>;
  limits: Pick<TurnLimits, "admit">;
  turnRunner: Pick<TurnRunner, "run">;
  bounds: () => BatchBounds;
  monitor: Monitor;
  logger: Logger;
}): SessionRunner {
  const { cluster, limits, turnRunner, logger } = parts;
  return new SessionRunner({
    queue: parts.queue,
    runTurn: async (batch, absorbInto) => {
      if (cluster && !(await mayRunHere(cluster, parts.platformAdapters, batch))) {
        logger.warn(
          { sessionId: batch.sessionId },
          "another instance owns this session now; its turn runs there",
        );
        return;
      }
      const admitted = await limits.admit(batch);
      if (admitted) await turnRunner.run(admitted, absorbInto);
    },
    bounds: parts.bounds,
    onOmitted: reportOmitted(parts.monitor, logger),
  });
}

/** Messages a turn had to leave out of its prompt: on the timeline and in the log. */
function reportOmitted(monitor: Monitor, logger: Logger) {
  return (batch: Batch, omitted: OmittedMessages): void => {
    const data = { kept: batch.messages.length, omitted: omitted.messageIds.length };
    monitor.emit({
      type: "batch.trimmed",
      sessionId: batch.sessionId,
      data: { ...data, messageIds: omitted.messageIds, triggerIds: omitted.triggerIds },
    });
    logger.warn(
      { sessionId: batch.sessionId, ...data, omittedTriggers: omitted.triggerIds.length },
      "too many messages for one turn: the oldest were left out of its prompt",
    );
  };
}
