import type { TurnRecord } from "../store/types.ts";
import { type Batch, mergeBatches, type OmittedMessages } from "./batch.ts";
import { type BatchBounds, boundBatch } from "./batch-bounds.ts";
import type { KeyedQueue } from "./keyed-queue.ts";

/** The interrupted turn a turn runs again after a restart: its id, and which run it was. */
export type InterruptedTurn = Pick<TurnRecord, "replyId" | "attempt">;

/** A batch about to become a turn, as the turn gates and the turn runner take it. */
export interface TurnRequest {
  batch: Batch;
  /**
   * Takes the batches that arrived meanwhile into the running turn: returns `current` merged
   * with them, within the bounds, or undefined when nothing arrived.
   */
  absorbInto: (current: Batch) => Batch | undefined;
  /** The turn a crash interrupted, which this one runs again (admitted before the crash). */
  rerunOf?: InterruptedTurn;
}

/** Takes one turn through the turn gates and runs it. */
export type TurnHandler = (request: TurnRequest) => Promise<void>;

export interface SessionRunnerDeps {
  queue: KeyedQueue;
  runTurn: TurnHandler;
  /** Read at every merge, so a reloaded config applies to the next one. */
  bounds: () => BatchBounds;
  /** Messages newly left out of a batch as it goes to a turn (once per hand-over, not per merge). */
  onOmitted: (batch: Batch, omitted: OmittedMessages) => void;
}

/**
 * Runs the agent once per session at a time. Batches that arrive while a session's turn is
 * running wait and are merged into its next turn, so a burst is answered once, not per message.
 * A running turn may also absorb them itself (the `wait` tool does). Whatever arrives, what
 * waits and what a turn reads stay within `bounds` (batch-bounds.ts).
 */
export class SessionRunner {
  /** Per session, the batches waiting for a turn, merged and bounded as they arrive. */
  private readonly pending = new Map<string, Batch>();
  private readonly scheduled = new Set<string>();

  constructor(private readonly deps: SessionRunnerDeps) {}

  submit(batch: Batch): void {
    const sessionId = batch.sessionId;
    const waiting = this.pending.get(sessionId);
    this.pending.set(
      sessionId,
      boundBatch(waiting ? mergeBatches([waiting, batch]) : batch, this.deps.bounds()),
    );
    if (this.scheduled.has(sessionId)) return;
    this.scheduled.add(sessionId);
    this.deps.queue
      .push(sessionId, async () => {
        this.scheduled.delete(sessionId);
        const waiting = this.take(sessionId);
        if (!waiting) return;
        this.reportOmitted(waiting, undefined);
        await this.deps.runTurn({ batch: waiting, absorbInto: (current) => this.absorbInto(current) });
      })
      .catch(() => {
        // The queue is closed (shutting down): the batch stays unanswered but its messages are stored.
        this.scheduled.delete(sessionId);
      });
  }

  /**
   * Runs a batch as a turn of its own, in session order, never merged with other batches:
   * digests and summaries read a transcript and must not absorb (or be absorbed into) a turn
   * people started.
   */
  submitAlone(batch: Batch): void {
    this.deps.queue
      .push(batch.sessionId, () => this.deps.runTurn({ batch, absorbInto: () => undefined }))
      .catch(() => {
        // The queue is closed (shutting down): the batch is dropped; its messages are stored.
      });
  }

  /**
   * Runs `task` in the session's turn order: crash recovery settles an interrupted turn there,
   * before anything submitted after it, and may run it again (`runAgain`) from inside `task`.
   */
  inOrder(sessionId: string, task: () => Promise<void>): void {
    this.deps.queue.push(sessionId, task).catch(() => {
      // The queue is closed (shutting down): the turn stays running and is settled next start.
    });
  }

  /** Runs an interrupted turn again; called from an `inOrder` task, so it keeps its place. It absorbs nothing new. */
  runAgain(batch: Batch, rerunOf: InterruptedTurn): Promise<void> {
    return this.deps.runTurn({ batch, absorbInto: () => undefined, rerunOf });
  }

  /** Sessions with batches waiting for a turn. */
  get waitingSessions(): number {
    return this.pending.size;
  }

  private take(sessionId: string): Batch | undefined {
    const waiting = this.pending.get(sessionId);
    this.pending.delete(sessionId);
    return waiting;
  }

  private absorbInto(current: Batch): Batch | undefined {
    const arrived = this.take(current.sessionId);
    if (!arrived) return undefined;
    const merged = boundBatch(mergeBatches([current, arrived]), this.deps.bounds());
    this.reportOmitted(merged, current.omitted);
    return merged;
  }

  /** Reports what `batch` left out beyond what was reported before (omissions only grow at the end). */
  private reportOmitted(batch: Batch, reported: OmittedMessages | undefined): void {
    const messageIds = batch.omitted?.messageIds.slice(reported?.messageIds.length ?? 0) ?? [];
    if (messageIds.length === 0) return;
    const triggerIds = batch.omitted?.triggerIds.slice(reported?.triggerIds.length ?? 0) ?? [];
    this.deps.onOmitted(batch, { messageIds, triggerIds });
  }
}
