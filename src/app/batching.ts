import type { Batch, OmittedMessages } from "../chat/batch.ts";
import { systemClock } from "../chat/clock.ts";
import type { DigestSettings, RealtimeSettings } from "../chat/config.ts";
import { DigestScheduler } from "../chat/digest-scheduler.ts";
import { RealtimeBatcher } from "../chat/realtime-batcher.ts";
import type { SessionRunner } from "../chat/session-runner.ts";
import type { Logger } from "../log/logger.ts";
import type { Monitor } from "../monitor/monitor.ts";

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

/** Messages a turn had to leave out of its prompt: on the timeline and in the log. */
export function reportOmitted(monitor: Monitor, logger: Logger) {
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
