import { setTimeout as sleep } from "node:timers/promises";
import { wasNotSent, wasRefused } from "../adapters/types.ts";
import type { LlmTextSink } from "../llm/types.ts";
import { type GuardedReply, guardReply, openBlockStart, stripInternal } from "./outbound-guard.ts";
import type { Outbox, SessionOrigin } from "./outbox.ts";
import { type OutgoingReply, textReplies } from "./reply-group.ts";
import { StreamSplitter } from "./split-text.ts";
import { type TypingDelaySettings, typingDelayMs } from "./typing-delay.ts";

/** A reply that cannot be written or sent; its message is the turn's one-line reason. */
export class ReplyFailure extends Error {}

/** What one reply's messages are sent with: the turn's outbox, reply id, signal and sent list. */
export interface SendingTurn {
  outbox: Outbox;
  replyId: string;
  signal: AbortSignal;
  /** Every message of the turn that left, in order; the sender appends to it. */
  sentMessageIds: string[];
  /** `chat.typingDelay` as the turn sends. */
  typingDelay: TypingDelaySettings;
  /** `chat.mentionAll`: whether a message may @ everyone (@全体成员); off, such a mention is removed. */
  mentionAll: boolean;
}

/**
 * Sends one reply's messages in order. The first quotes `quoteId` (the reply's set_quote); a
 * later one quotes the message sent before it when it asks to (`quote_previous`).
 */
export class ReplySender {
  private sent = 0;
  private previous: string | undefined;

  constructor(
    private readonly turn: SendingTurn,
    private readonly origin: SessionOrigin,
    private readonly quoteId: string | undefined,
  ) {}

  async sendAll(group: OutgoingReply[]): Promise<void> {
    for (const message of group) await this.send(message);
  }

  async send(outgoing: OutgoingReply): Promise<void> {
    const message = this.turn.mentionAll ? outgoing : withoutMentionOfAll(outgoing);
    // A message that was only an @ of everyone has nothing left to send.
    if (message.segments.length === 0) return;
    const quote = this.sent === 0 ? this.quoteId : message.quotePrevious ? this.previous : undefined;
    const segments =
      quote === undefined
        ? message.segments
        : [{ type: "reply" as const, data: { id: quote } }, ...message.segments];
    // As if typed: only this turn waits, other chats' turns send meanwhile.
    const delayMs = typingDelayMs(message.segments, this.turn.typingDelay);
    if (delayMs > 0) await sleep(delayMs, undefined, { signal: this.turn.signal }).catch(() => {});
    // A turn stopped meanwhile (its trigger recalled, a timeout) sends nothing more.
    this.turn.signal.throwIfAborted();
    try {
      const sent = await this.turn.outbox.send(this.origin, segments, this.turn.replyId, this.turn.signal);
      this.turn.sentMessageIds.push(sent.messageId);
      this.previous = sent.messageId;
      this.sent++;
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      // OneBot has no idempotency key: a message that may have left is never sent again.
      const doubt = wasNotSent(error)
        ? ""
        : wasRefused(error)
          ? " (the platform refused the last: not sent)"
          : " (the last may have gone out; not sent again)";
      throw new ReplyFailure(`sending failed after ${this.sent} message(s)${doubt}: ${why}`);
    }
  }
}

/** The message without its @全体成员 (an `at` of "all"), which the outbound guard keeps out unless chat.mentionAll. */
function withoutMentionOfAll(message: OutgoingReply): OutgoingReply {
  const segments = message.segments.filter(
    (segment) => !(segment.type === "at" && String((segment.data as { qq?: unknown }).qq) === "all"),
  );
  return segments.length === message.segments.length ? message : { ...message, segments };
}

/** A line starting with `[` this short may still become a transcript label: held back while streaming. */
const UNDECIDED_LINE = 80;
/** A `<` this close to the end may still become a block's opening tag. */
const UNDECIDED_TAG = 24;

/**
 * A streamed reply that nothing rewrites before sending: each message goes out as soon as
 * the splitter has completed it, one after another. The outbound guard sees the text first:
 * an open reasoning or tool-call block, a tag still arriving and a line that may still become a
 * transcript label are held back until decided. Once a message is on its way the model call is not retried (`restart` answers
 * false), so no message is sent twice.
 */
export class StreamedSends implements LlmTextSink {
  private splitter: StreamSplitter;
  private queue: Promise<void> = Promise.resolve();
  private failure: unknown;
  /** The model's text so far, and the guarded part of it already given to the splitter. */
  private raw = "";
  private fed = "";
  /** Messages handed to the sender so far. */
  dispatched = 0;

  constructor(
    private readonly sender: ReplySender,
    private readonly limit: number,
  ) {
    this.splitter = new StreamSplitter(limit);
  }

  restart(): boolean {
    if (this.dispatched > 0) return false;
    this.splitter = new StreamSplitter(this.limit);
    this.raw = "";
    this.fed = "";
    return true;
  }

  text(delta: string): void {
    this.raw += delta;
    this.feed(stripInternal(this.raw.slice(0, this.decidedLength()), false));
  }

  /**
   * The answer is complete: sends the rest and resolves once every message has left; or, when
   * nothing left and the guard drops the whole reply, resolves with why nothing is sent.
   */
  async finish(): Promise<GuardedReply> {
    const guarded = guardReply(this.raw);
    if ("dropped" in guarded && this.dispatched === 0) return guarded;
    this.feed(stripInternal(this.raw, true));
    this.enqueue(this.splitter.end());
    await this.settled();
    return { text: this.fed };
  }

  /** Resolves once the messages already handed over have been sent; throws the first send failure. */
  async settled(): Promise<void> {
    await this.queue;
    if (this.failure !== undefined) throw this.failure;
  }

  /**
   * How much of the text so far the guard can judge: up to an open block, a `<` that may
   * become one, or a short last line that may become a label.
   */
  private decidedLength(): number {
    const raw = this.raw;
    let decided = raw.length;
    const lineStart = raw.lastIndexOf("\n") + 1;
    const line = raw.slice(lineStart).trimStart();
    if ((line === "" || line.startsWith("[")) && raw.length - lineStart < UNDECIDED_LINE) decided = lineStart;
    const tag = raw.lastIndexOf("<");
    if (tag >= 0 && raw.length - tag < UNDECIDED_TAG && !raw.includes(">", tag))
      decided = Math.min(decided, tag);
    const open = openBlockStart(raw);
    return open >= 0 ? Math.min(decided, open) : decided;
  }

  /** Gives the splitter the guarded text beyond what it already has. */
  private feed(guarded: string): void {
    if (!guarded.startsWith(this.fed)) {
      // Later text changed what came before (a closing `</think>` with no opening): start over
      // while nothing has left; otherwise only what is new goes on.
      if (this.dispatched === 0) {
        this.splitter = new StreamSplitter(this.limit);
        this.fed = "";
      } else this.fed = guarded.slice(0, this.fed.length);
    }
    const fresh = guarded.slice(this.fed.length);
    this.fed = guarded;
    if (fresh) this.enqueue(this.splitter.push(fresh));
  }

  private enqueue(chunks: string[]): void {
    for (const message of textReplies(chunks)) {
      this.dispatched++;
      // After a failed send the rest is dropped: later messages never overtake a lost one.
      this.queue = this.queue.then(async () => {
        if (this.failure !== undefined) return;
        try {
          await this.sender.send(message);
        } catch (error) {
          this.failure = error;
        }
      });
    }
  }
}
