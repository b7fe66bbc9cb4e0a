import type { ChatMessage } from "../message/inbound.ts";
import { renderSegments } from "../message/render.ts";
import { type Segment, textSegment } from "../message/segment.ts";
import type { Batch } from "./batch.ts";

/** How much one realtime turn reads as its new messages (`chat.realtime.maxTurn*`). */
export interface BatchBounds {
  maxMessages: number;
  /** Characters of the messages as the model reads them (rendered segments). */
  maxChars: number;
  /** Messages of any one sender. */
  maxMessagesPerUser: number;
}

/** Appended to a message cut short to fit; counted within the bound. */
const CLIPPED_MARK = "…（已截断）";

/**
 * The batch within `bounds`, however many batches were merged into it. Senders take turns —
 * every sender's newest message, then every sender's second newest, … (the most recent
 * speaker first) — so one member's flood cannot crowd out the others. When the senders'
 * newest messages do not fit whole together, each is cut to a fair share of `maxChars`.
 * What does not fit is left out and listed in `omitted`: the messages stay stored and show in
 * history; the prompt says how many are missing. A batch within bounds is returned as it is.
 */
export function boundBatch(batch: Batch, bounds: BatchBounds): Batch {
  const lengths = new Map(batch.messages.map((m) => [m, renderedLength(m.segments)]));
  const newestFirst = newestFirstBySender(batch.messages);
  if (fits(batch.messages, newestFirst, lengths, bounds)) return batch;

  const kept = new Map<ChatMessage, ChatMessage>();
  let chars = 0;
  const firstRound = [...newestFirst.values()].slice(0, bounds.maxMessages).map((own) => own[0]!);
  const shares = fairShares(
    firstRound.map((m) => lengths.get(m)!),
    bounds.maxChars,
  );
  for (const [index, message] of firstRound.entries()) {
    const share = shares[index]!;
    const length = lengths.get(message)!;
    if (share === length) kept.set(message, message);
    else if (share > 0) kept.set(message, clipMessage(message, share));
    chars += share;
  }
  for (let round = 1; round < bounds.maxMessagesPerUser; round++) {
    for (const own of newestFirst.values()) {
      const message = own[round];
      if (!message || kept.size >= bounds.maxMessages) continue;
      const length = lengths.get(message)!;
      if (chars + length > bounds.maxChars) continue;
      kept.set(message, message);
      chars += length;
    }
  }

  const messages = batch.messages.flatMap((m) => {
    const shown = kept.get(m);
    return shown ? [shown] : [];
  });
  const left = batch.messages.filter((m) => !kept.has(m));
  const leftIds = new Set(left.map((m) => m.messageId));
  const keptIds = new Set(messages.map((m) => m.messageId));
  return {
    ...batch,
    messages,
    triggerIds: batch.triggerIds.filter((id) => keptIds.has(id)),
    omitted: {
      messageIds: [...(batch.omitted?.messageIds ?? []), ...left.map((m) => m.messageId)],
      triggerIds: [...(batch.omitted?.triggerIds ?? []), ...batch.triggerIds.filter((id) => leftIds.has(id))],
    },
  };
}

function renderedLength(segments: Segment[]): number {
  return renderSegments(segments).length;
}

/** Each sender's messages, newest first; senders in the order they last spoke, most recent first. */
function newestFirstBySender(messages: ChatMessage[]): Map<string, ChatMessage[]> {
  const bySender = new Map<string, ChatMessage[]>();
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    const own = bySender.get(message.userId);
    if (own) own.push(message);
    else bySender.set(message.userId, [message]);
  }
  return bySender;
}

function fits(
  messages: ChatMessage[],
  bySender: Map<string, ChatMessage[]>,
  lengths: Map<ChatMessage, number>,
  bounds: BatchBounds,
): boolean {
  if (messages.length > bounds.maxMessages) return false;
  for (const own of bySender.values()) if (own.length > bounds.maxMessagesPerUser) return false;
  let chars = 0;
  for (const length of lengths.values()) chars += length;
  return chars <= bounds.maxChars;
}

/**
 * Splits `budget` among wants so that nobody gets more than they want and the rest share
 * equally (max-min fairness): short messages stay whole, long ones are cut to what is left.
 */
function fairShares(wants: number[], budget: number): number[] {
  const shares = new Array<number>(wants.length).fill(0);
  const order = wants.map((_, index) => index).sort((a, b) => wants[a]! - wants[b]!);
  let left = budget;
  for (const [position, index] of order.entries()) {
    const share = Math.min(wants[index]!, Math.floor(left / (order.length - position)));
    shares[index] = share;
    left -= share;
  }
  return shares;
}

/** The message with its text cut so it renders to at most `maxChars` characters, marked as cut. */
function clipMessage(message: ChatMessage, maxChars: number): ChatMessage {
  let room = Math.max(0, maxChars - CLIPPED_MARK.length);
  const segments: Segment[] = [];
  for (const segment of message.segments) {
    const length = renderedLength([segment]);
    if (length <= room) {
      segments.push(segment);
      room -= length;
      continue;
    }
    if (segment.type === "text" && room > 0)
      segments.push(textSegment(String(segment.data.text).slice(0, room)));
    break;
  }
  segments.push(textSegment(CLIPPED_MARK));
  return { ...message, segments };
}
