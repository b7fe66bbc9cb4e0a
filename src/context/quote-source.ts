import type { ChatMessage } from "../message/inbound.ts";
import { extractForwardIds, findReplyId } from "../message/render.ts";
import type { QuoteSource } from "./quote-resolver.ts";

/** What a message points at, when it replies to something or carries forwards. */
export function quoteSourceOf(message: ChatMessage): QuoteSource | undefined {
  const replyId = findReplyId(message.segments);
  const forwardIds = extractForwardIds(message.segments);
  if (replyId === undefined && forwardIds.length === 0) return undefined;
  return replyId === undefined ? { forwardIds } : { replyId, forwardIds };
}

/**
 * The one message of a batch whose quote is resolved: the last that replies to something or
 * carries forwards. Earlier quotes in the same burst are not expanded.
 */
export function findQuoteMessage(messages: ChatMessage[]): ChatMessage | undefined {
  return messages.findLast((message) => quoteSourceOf(message) !== undefined);
}
