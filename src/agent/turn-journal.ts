import type { Batch } from "../chat/batch.ts";
import type { Logger } from "../log/logger.ts";
import type { TurnRecord, TurnStatus, TurnStore } from "../store/types.ts";

/**
 * One turn's record in the TurnStore: committed as `running` before the first model call (and
 * again when the turn takes in more messages), so a crash leaves a trace start-up can act on;
 * replaced by the outcome when the turn ends.
 */
export class TurnJournal {
  constructor(
    private readonly turns: TurnStore,
    private readonly logger: Logger,
    private readonly replyId: string,
    private readonly createdAt: number,
    /** The interrupted turn this one runs again. */
    private readonly recoveredFrom: string | undefined,
    /** The cluster instance running it. */
    private readonly instanceId?: string,
    /** Its start (with these triggers) is committed, or could not be. */
    private readonly triggersTaken?: (batch: Batch) => void,
  ) {}

  /** Commits the turn as running with `batch`, its messages so far; settles once committed (or refused). */
  async running(batch: Batch): Promise<void> {
    try {
      await this.turns.begin(this.record(batch, "running"));
    } catch (error) {
      // The turn still answers; only a crash before it ends would go unnoticed.
      this.logger.warn(
        { err: error, replyId: this.replyId },
        "could not record the turn as running; a crash now would lose it",
      );
    }
    this.triggersTaken?.(batch);
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
    await this.turns.record(record);
    return record;
  }

  private record(batch: Batch, status: TurnStatus): TurnRecord {
    return {
      replyId: this.replyId,
      sessionId: batch.sessionId,
      status,
      kind: batch.kind,
      triggerMessageIds: batch.triggerIds,
      messageIds: batch.messages.map((message) => message.messageId),
      ...(this.recoveredFrom === undefined ? {} : { recoveredFrom: this.recoveredFrom }),
      ...(this.instanceId === undefined ? {} : { instanceId: this.instanceId }),
      createdAt: this.createdAt,
    };
  }
}
