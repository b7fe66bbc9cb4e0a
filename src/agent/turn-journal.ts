import type { Batch } from "../chat/batch.ts";
import type { InterruptedTurn } from "../chat/session-runner.ts";
import type { Logger } from "../log/logger.ts";
import { type FenceToken, isSessionFenced, type SessionFenced } from "../store/session-fence.ts";
import type { TurnRecord, TurnStatus, TurnStore } from "../store/types.ts";

export interface TurnJournalParts {
  turns: TurnStore;
  logger: Logger;
  replyId: string;
  createdAt: number;
  /** The interrupted turn this one runs again. */
  rerunOf?: InterruptedTurn;
  /** The cluster instance running it. */
  instanceId?: string;
  /** Its start (with these triggers) is committed, or could not be. */
  triggersTaken?: (batch: Batch) => void;
  /** The token of the session lease it runs under (cluster): the store refuses a stale one. */
  fence?: FenceToken;
}

/**
 * One turn's record in the TurnStore: committed as `running` before the first model call (and
 * again when the turn takes in more messages), so a crash leaves a trace start-up can act on;
 * replaced by the outcome when the turn ends.
 */
export class TurnJournal {
  constructor(private readonly parts: TurnJournalParts) {}

  /**
   * Commits the turn as running with `batch`, its messages so far; settles once committed (or
   * refused). Resolves with the store's SessionFenced refusal when another instance holds the
   * session's lease now: the turn must not go on.
   */
  async running(batch: Batch): Promise<SessionFenced | undefined> {
    try {
      await this.parts.turns.begin(this.record(batch, "running"), this.parts.fence);
    } catch (error) {
      if (isSessionFenced(error)) return error;
      // The turn still answers; only a crash before it ends would go unnoticed.
      this.parts.logger.warn(
        { err: error, replyId: this.parts.replyId },
        "could not record the turn as running; a crash now would lose it",
      );
    }
    this.parts.triggersTaken?.(batch);
    return undefined;
  }

  /** Records how the turn ended; resolves with the record once the store has taken it. */
  async finished(
    batch: Batch,
    outcome: { status: TurnStatus; reason: string },
    detail: Record<string, unknown>,
  ): Promise<TurnRecord & { finishedAt: number }> {
    const record = {
      ...this.record(batch, outcome.status),
      reason: outcome.reason,
      finishedAt: Date.now(),
      detail,
    };
    await this.parts.turns.record(record);
    return record;
  }

  private record(batch: Batch, status: TurnStatus): TurnRecord {
    const { rerunOf, instanceId } = this.parts;
    return {
      replyId: this.parts.replyId,
      sessionId: batch.sessionId,
      status,
      kind: batch.kind,
      triggerMessageIds: batch.triggerIds,
      messageIds: batch.messages.map((message) => message.messageId),
      ...(rerunOf === undefined
        ? {}
        : { recoveredFrom: rerunOf.replyId, attempt: (rerunOf.attempt ?? 1) + 1 }),
      ...(instanceId === undefined ? {} : { instanceId }),
      createdAt: this.parts.createdAt,
    };
  }
}
