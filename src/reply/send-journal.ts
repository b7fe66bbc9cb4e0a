import { createHash } from "node:crypto";
import { type SendTarget, wasNotSent, wasRefused } from "../adapters/types.ts";
import type { Logger } from "../log/logger.ts";
import { renderSegments } from "../message/render.ts";
import type { Segment } from "../message/segment.ts";
import { type FenceToken, isSessionFenced, type SessionFenced } from "../store/session-fence.ts";
import type { SendStore } from "../store/types.ts";

/** How much of a message's text the journal keeps for people reading it. */
const SUMMARY_CHARS = 80;

/**
 * One journalled send, settled once it has ended. Settling never throws and is not waited
 * for: a settlement lost in a crash leaves the send pending, which a restart reads as in doubt.
 */
export interface JournalledSend {
  sent(platformMessageId: string): void;
  failed(error: unknown): void;
}

const UNRECORDED: JournalledSend = { sent() {}, failed() {} };

/**
 * Records each send of a turn before and after it leaves (see SendStore). A journal write the
 * database refuses does not stop the message: a reply matters more than the record that
 * protects a restart from sending it twice, and the log says which send went unrecorded.
 */
export class SendJournal {
  constructor(
    private readonly store: SendStore,
    private readonly logger: Logger,
    /**
     * In a cluster, the lease token each turn runs under (TurnRunner): its sends carry it, and
     * one the store refuses (another instance holds the session now) stops the turn, unsent.
     */
    private readonly fencing?: {
      fenceOf(replyId: string): FenceToken | undefined;
      fencedOut(replyId: string, refusal: SessionFenced): void;
    },
  ) {}

  /** Commits the send as pending; the message may leave once this resolves. */
  async open(
    replyId: string,
    adapterId: string,
    target: SendTarget,
    segments: Segment[],
  ): Promise<JournalledSend> {
    let id: number;
    try {
      id = await this.store.pending({
        replyId,
        sessionId: target.sessionId ?? "",
        target: `${adapterId}:${target.selfId}:${target.chatType}:${target.peerId}`,
        contentHash: createHash("sha256").update(JSON.stringify(segments)).digest("hex"),
        summary: renderSegments(segments).slice(0, SUMMARY_CHARS),
        fence: this.fencing?.fenceOf(replyId),
      });
    } catch (error) {
      if (isSessionFenced(error)) {
        this.fencing?.fencedOut(replyId, error);
        throw Object.assign(error, { notSent: true });
      }
      this.logger.warn({ err: error, replyId }, "could not journal a send; sending it unrecorded");
      return UNRECORDED;
    }
    const settle = (what: () => Promise<void>) => {
      what().catch((error: unknown) => {
        this.logger.warn({ err: error, replyId, sendId: id }, "could not record how a send ended");
      });
    };
    return {
      sent: (platformMessageId) => settle(() => this.store.sent(id, platformMessageId)),
      failed: (error) =>
        settle(() =>
          this.store.settleFailed(
            id,
            wasNotSent(error) || wasRefused(error) ? "failed" : "in_doubt",
            error instanceof Error ? error.message : String(error),
          ),
        ),
    };
  }
}
