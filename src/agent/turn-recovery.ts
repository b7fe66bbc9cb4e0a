import type { Batch, BatchKind } from "../chat/batch.ts";
import type { InterruptedTurn } from "../chat/session-runner.ts";
import { triggerText } from "../chat/turn-started.ts";
import type { Logger } from "../log/logger.ts";
import type { ChatMessage } from "../message/inbound.ts";
import type { Monitor } from "../monitor/monitor.ts";
import type { MessageStore, SendStore, TurnRecord, TurnStore } from "../store/types.ts";

/** How long a turn run again waits for its account to connect after a restart. */
const ACCOUNT_WAIT_MS = 60_000;
/** Send journal entries older than this are deleted at start-up: only running turns need them. */
const SEND_JOURNAL_KEEP_MS = 7 * 24 * 3_600_000;

export interface TurnRecoveryDeps {
  turns: TurnStore;
  sends: Pick<SendStore, "forReply" | "pruneBefore">;
  messages: Pick<MessageStore, "findByMessageId">;
  /** Whether the timeline kept the turn's `turn.started` event (it is written in batches). */
  onTimeline(replyId: string): Promise<boolean>;
  /** `agent.recoverWithinMs`: how old a trigger may be and still be answered after a restart. */
  recoverWithinMs: number;
  /** Queues `task` in the session's turn order. */
  inSessionOrder(sessionId: string, task: () => Promise<void>): void;
  /** Waits up to `timeoutMs` for the account that answers `origin`; false when it did not connect. */
  accountReady(origin: ChatMessage, timeoutMs: number): Promise<boolean>;
  /** Runs `batch` as a new turn naming the interrupted one, which it marks `interrupted`. */
  runAgain(batch: Batch, interrupted: InterruptedTurn): Promise<void>;
  monitor: Monitor;
  logger: Logger;
}

/**
 * Settles, at start-up, the turns the previous process left `running` (SIGKILL, OOM, power
 * loss). OneBot has no idempotency key, so sending is at-most-once: a turn with a send in
 * doubt is never run again; a turn whose sends all left is finished; only a turn that sent
 * nothing is run again from its stored messages, when its trigger is recent enough, and only
 * once: a turn that was itself such a second run crashed too, so its messages may well be what
 * kills the process (a picture that exhausts memory), and running it again would crash-loop.
 */
export class TurnRecovery {
  constructor(private readonly deps: TurnRecoveryDeps) {}

  /**
   * Resolves once every interrupted turn (those `which` picks: in a cluster, an instance
   * settles only its own and those of instances that died) is settled or queued to run again
   * in its session.
   */
  async recover(now = Date.now(), which: (turn: TurnRecord) => boolean = () => true): Promise<void> {
    for (const turn of await this.deps.turns.running()) if (which(turn)) await this.settle(turn, now);
    await this.deps.sends.pruneBefore(now - SEND_JOURNAL_KEEP_MS);
  }

  private async settle(turn: TurnRecord, now: number): Promise<void> {
    const sends = await this.deps.sends.forReply(turn.replyId);
    if (sends.some((send) => send.state === "pending" || send.state === "in_doubt")) {
      await this.close(
        turn,
        "interrupted",
        "interrupted by a restart; a send was in doubt (it may have gone out), so it was not run again",
      );
      return;
    }
    const sent = sends.filter((send) => send.state === "sent").length;
    if (sent > 0) {
      await this.close(turn, "replied", `finished after a restart: its ${sent} message(s) had been sent`);
      return;
    }
    if (turn.attempt !== undefined && turn.attempt > 1) {
      const previous = turn.recoveredFrom === undefined ? "" : ` (turn ${turn.recoveredFrom})`;
      await this.close(
        turn,
        "interrupted",
        `interrupted by a restart again; its previous run${previous} had ended in a crash too, so it was not run again`,
      );
      return;
    }
    const batch = await this.storedBatch(turn);
    if (!batch) {
      await this.close(turn, "interrupted", "interrupted by a restart; its messages are no longer stored");
      return;
    }
    const age = now - newestTriggerTime(batch, turn);
    if (age > this.deps.recoverWithinMs) {
      const limit = `agent.recoverWithinMs is ${this.deps.recoverWithinMs}`;
      await this.close(
        turn,
        "interrupted",
        `interrupted by a restart; its trigger was ${age} ms old (${limit})`,
      );
      return;
    }
    const origin =
      batch.requestedBy ?? batch.messages.find((message) => !message.fromSelf) ?? batch.messages[0]!;
    this.deps.inSessionOrder(turn.sessionId, async () => {
      if (!(await this.deps.accountReady(origin, ACCOUNT_WAIT_MS))) {
        const why = `account ${origin.selfId} did not connect within ${ACCOUNT_WAIT_MS / 1000} s`;
        await this.close(turn, "interrupted", `interrupted by a restart; ${why}`);
        return;
      }
      this.deps.logger.info(
        { replyId: turn.replyId, sessionId: turn.sessionId },
        "running an interrupted turn again",
      );
      await this.deps.runAgain(batch, turn);
      // The new turn marked this one interrupted in the commit that started it.
      const settled = await this.deps.turns.get(turn.replyId);
      if (settled && settled.status !== "running") await this.announce(settled);
    });
  }

  /** The turn's batch from the stored messages, or undefined when any of them is gone. */
  private async storedBatch(turn: TurnRecord): Promise<Batch | undefined> {
    const find = (id: string) => this.deps.messages.findByMessageId(turn.sessionId, id);
    const messages = await Promise.all((turn.messageIds ?? turn.triggerMessageIds).map(find));
    if (!messages.every((message) => message !== undefined)) return undefined;
    const kind = (turn.kind ?? "realtime") as BatchKind;
    const batch: Batch = { kind, sessionId: turn.sessionId, messages, triggerIds: turn.triggerMessageIds };
    if (kind !== "summary") return messages.length > 0 ? batch : undefined;
    // A summary answers the command that asked for it, its only trigger.
    const requestedBy =
      turn.triggerMessageIds[0] === undefined ? undefined : await find(turn.triggerMessageIds[0]);
    return requestedBy && { ...batch, requestedBy };
  }

  private async close(turn: TurnRecord, status: "replied" | "interrupted", reason: string): Promise<void> {
    const record: TurnRecord = { ...turn, status, reason, finishedAt: Date.now() };
    await this.deps.turns.record(record);
    await this.announce(record);
  }

  /** Puts the settled turn on the timeline (with its start, when the crash lost that event). */
  private async announce(turn: TurnRecord): Promise<void> {
    const { replyId, sessionId } = turn;
    if (!(await this.deps.onTimeline(replyId))) {
      const triggers = await Promise.all(
        turn.triggerMessageIds.map((id) => this.deps.messages.findByMessageId(sessionId, id)),
      );
      const text = triggerText(
        triggers.filter((message) => message !== undefined),
        turn.triggerMessageIds,
      );
      this.deps.monitor.emit({
        type: "turn.started",
        time: turn.createdAt,
        replyId,
        sessionId,
        data: {
          kind: turn.kind,
          messageIds: turn.messageIds ?? [],
          triggerIds: turn.triggerMessageIds,
          ...(text && { triggerText: text }),
        },
      });
    }
    const finishedAt = turn.finishedAt ?? Date.now();
    this.deps.monitor.emit({
      type: "turn.finished",
      time: finishedAt,
      replyId,
      sessionId,
      data: { status: turn.status, reason: turn.reason, durationMs: finishedAt - turn.createdAt },
    });
    this.deps.logger.warn(
      { replyId, sessionId, status: turn.status, reason: turn.reason },
      "interrupted turn settled",
    );
  }
}

/** When the turn's newest trigger arrived (its start when it had none, as digests do). */
function newestTriggerTime(batch: Batch, turn: TurnRecord): number {
  const triggers = new Set(batch.triggerIds);
  const times = batch.messages.filter((message) => triggers.has(message.messageId)).map((m) => m.time);
  if (batch.requestedBy) times.push(batch.requestedBy.time);
  return times.length > 0 ? Math.max(...times) : turn.createdAt;
}
