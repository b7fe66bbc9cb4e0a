import { type Batch, mergeBatches } from "./batch.ts";
import type { KeyedQueue } from "./keyed-queue.ts";

/**
 * Runs the agent once per session at a time. Batches that arrive while a session's turn is
 * running wait and are merged into its next turn, so a burst is answered once, not per message.
 * A running turn may also absorb them itself (the `wait` tool does).
 */
export type TurnHandler = (batch: Batch, absorbPending: () => Batch | undefined) => Promise<void>;

export class SessionRunner {
  private readonly pending = new Map<string, Batch[]>();
  private readonly scheduled = new Set<string>();

  constructor(
    private readonly queue: KeyedQueue,
    private readonly runTurn: TurnHandler,
  ) {}

  submit(batch: Batch): void {
    const sessionId = batch.sessionId;
    const waiting = this.pending.get(sessionId);
    if (waiting) waiting.push(batch);
    else this.pending.set(sessionId, [batch]);
    if (this.scheduled.has(sessionId)) return;
    this.scheduled.add(sessionId);
    this.queue
      .push(sessionId, async () => {
        this.scheduled.delete(sessionId);
        const merged = this.take(sessionId);
        if (merged) await this.runTurn(merged, () => this.take(sessionId));
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
    this.queue
      .push(batch.sessionId, () => this.runTurn(batch, () => undefined))
      .catch(() => {
        // The queue is closed (shutting down): the batch is dropped; its messages are stored.
      });
  }

  /** Sessions with batches waiting for a turn. */
  get waitingSessions(): number {
    return this.pending.size;
  }

  private take(sessionId: string): Batch | undefined {
    const batches = this.pending.get(sessionId);
    if (!batches?.length) return undefined;
    this.pending.delete(sessionId);
    return mergeBatches(batches);
  }
}
