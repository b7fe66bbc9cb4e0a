import { randomUUID } from "node:crypto";
import type { Logger } from "../log/logger.ts";
import type { Monitor } from "../monitor/monitor.ts";
import type { Batch } from "./batch.ts";
import { turnStartedData } from "./turn-started.ts";

/** Messages the bot will not answer, and why. */
export interface Refusal {
  /** `access.denied` (src/chat/chat-access.ts) or `limit.reached` (src/chat/turn-limits.ts). */
  type: "access.denied" | "limit.reached";
  batch: Batch;
  /** The rule or limit and the values it compared, for the timeline. */
  detail: Record<string, unknown>;
  /** One line: why no turn ran. */
  reason: string;
}

/**
 * Records a refusal on the timeline the way a turn is recorded (`turn.started`, the refusal's
 * own event, `turn.finished` silent with the reason), so the console answers "why didn't it
 * reply?" for it like for any turn. `notice` runs in between, under the same reply id, so a
 * notice the bot sends is listed with the refusal that caused it.
 */
export async function recordRefusal(
  deps: { monitor: Monitor; logger: Logger },
  refusal: Refusal,
  notice?: (replyId: string) => Promise<void>,
): Promise<void> {
  const { batch } = refusal;
  const replyId = randomUUID();
  const startedAt = Date.now();
  const sessionId = batch.sessionId;
  deps.monitor.emit({
    type: "turn.started",
    replyId,
    sessionId,
    data: turnStartedData(batch),
  });
  // With the triggers it refused: a cluster stops keeping them for another instance to answer.
  deps.monitor.emit({
    type: refusal.type,
    replyId,
    sessionId,
    data: { ...refusal.detail, triggerIds: batch.triggerIds },
  });
  if (notice) {
    try {
      await notice(replyId);
    } catch (error) {
      deps.logger.warn({ replyId, sessionId, err: error }, "could not send the notice of a refused turn");
    }
  }
  deps.monitor.emit({
    type: "turn.finished",
    replyId,
    sessionId,
    data: { status: "silent", reason: refusal.reason, durationMs: Date.now() - startedAt },
  });
  deps.logger.info({ replyId, sessionId, reason: refusal.reason }, "turn refused");
}
