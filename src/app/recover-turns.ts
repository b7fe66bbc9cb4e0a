import { TurnRecovery } from "../agent/turn-recovery.ts";
import type { TurnRunner } from "../agent/turn-runner.ts";
import type { KeyedQueue } from "../chat/keyed-queue.ts";
import type { TsumugiConfig } from "../config/schema.ts";
import type { Logger } from "../log/logger.ts";
import type { Monitor } from "../monitor/monitor.ts";
import type { Outbox } from "../reply/outbox.ts";
import type { MessageStore, Stores } from "../store/types.ts";

/**
 * Settles the turns the previous process left running (see TurnRecovery); resolves once each
 * is settled or queued in its session, so no new message can start a turn before them.
 */
export async function recoverInterruptedTurns(parts: {
  config: TsumugiConfig;
  stores: Stores;
  messages: MessageStore;
  queue: KeyedQueue;
  outbox: Outbox;
  turnRunner: TurnRunner;
  monitor: Monitor;
  logger: Logger;
}): Promise<void> {
  const { config, stores, queue, outbox, turnRunner, logger } = parts;
  const recovery = new TurnRecovery({
    turns: stores.turns,
    sends: stores.sends,
    messages: parts.messages,
    onTimeline: async (replyId) =>
      (await stores.monitorEvents.turnEvents(replyId)).some((event) => event.type === "turn.started"),
    recoverWithinMs: config.agent.recoverWithinMs,
    inSessionOrder: (sessionId, task) => {
      // A closed queue means shutting down: the turn stays running and is settled next start.
      queue.push(sessionId, task).catch(() => {});
    },
    accountReady: (origin, timeoutMs) => outbox.accountReady(origin, timeoutMs),
    // Recovered turns were admitted by the limits before the crash and absorb nothing new.
    runAgain: (batch, recoveredFrom) => turnRunner.run(batch, () => undefined, recoveredFrom),
    monitor: parts.monitor,
    logger,
  });
  try {
    await recovery.recover();
  } catch (error) {
    logger.error({ err: error }, "could not settle the turns interrupted by the last stop");
  }
}
