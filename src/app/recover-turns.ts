import { TurnRecovery } from "../agent/turn-recovery.ts";
import type { SessionRunner } from "../chat/session-runner.ts";
import type { RecoveryWork } from "../cluster/inbox.ts";
import type { TsumugiConfig } from "../config/schema.ts";
import type { Logger } from "../log/logger.ts";
import type { Monitor } from "../monitor/monitor.ts";
import type { Outbox } from "../reply/outbox.ts";
import type { MessageStore, Stores, TurnRecord } from "../store/types.ts";

export interface RecoveryParts {
  config: TsumugiConfig;
  stores: Stores;
  messages: MessageStore;
  /** Where interrupted turns run again, in their sessions' order, as every turn does. */
  sessions: SessionRunner;
  outbox: Outbox;
  monitor: Monitor;
  logger: Logger;
}

/** Settles interrupted turns (see TurnRecovery) in their sessions' order on this instance. */
function turnRecovery(parts: RecoveryParts): TurnRecovery {
  const { config, stores, sessions, outbox, logger } = parts;
  return new TurnRecovery({
    turns: stores.turns,
    sends: stores.sends,
    messages: parts.messages,
    onTimeline: async (replyId) =>
      (await stores.monitorEvents.turnEvents(replyId)).some((event) => event.type === "turn.started"),
    recoverWithinMs: config.agent.recoverWithinMs,
    inSessionOrder: (sessionId, task) => sessions.inOrder(sessionId, task),
    accountReady: (origin, timeoutMs) => outbox.accountReady(origin, timeoutMs),
    runAgain: (batch, interrupted) => sessions.runAgain(batch, interrupted),
    monitor: parts.monitor,
    logger,
  });
}

/**
 * Settles the turns the previous process left running (those `which` picks); resolves once
 * each is settled or queued in its session, so no new message can start a turn before them.
 */
export async function recoverInterruptedTurns(
  parts: RecoveryParts,
  which?: (turn: TurnRecord) => boolean,
): Promise<void> {
  try {
    await turnRecovery(parts).recover(Date.now(), which);
  } catch (error) {
    parts.logger.error({ err: error }, "could not settle the turns interrupted by the last stop");
  }
}

/** How many of a session's newest turns are searched for a pending trigger already answered. */
const ANSWERED_LOOKBACK = 50;

/**
 * Work another instance left when it died, in a session this instance now owns: its running
 * turns are settled as a restart settles them, then the triggers it had accepted and not yet
 * started a turn for — unless a turn took them meanwhile — are answered in one realtime batch.
 */
export async function recoverClusterWork(parts: RecoveryParts, work: RecoveryWork): Promise<void> {
  const { stores, messages, config, logger } = parts;
  if (work.replyIds.length > 0) {
    const interrupted = new Set(work.replyIds);
    await recoverInterruptedTurns(parts, (turn) => interrupted.has(turn.replyId));
  }
  if (work.triggerIds.length === 0) return;
  const turns = await stores.turns.listBySession(work.sessionId, ANSWERED_LOOKBACK);
  const answered = new Set(turns.flatMap((turn) => turn.triggerMessageIds));
  const now = Date.now();
  const found = await Promise.all(
    work.triggerIds
      .filter((id) => !answered.has(id))
      .map((id) => messages.findByMessageId(work.sessionId, id)),
  );
  const triggers = found
    .filter((message) => message !== undefined)
    .filter((message) => now - message.time <= config.agent.recoverWithinMs)
    .sort((a, b) => a.time - b.time);
  logger.warn(
    {
      sessionId: work.sessionId,
      from: work.from,
      pending: work.triggerIds.length,
      answering: triggers.length,
    },
    "answering triggers a stopped instance had accepted",
  );
  if (triggers.length === 0) return;
  parts.sessions.submit({
    kind: "realtime",
    sessionId: work.sessionId,
    messages: triggers,
    triggerIds: triggers.map((message) => message.messageId),
  });
}
