import { forwardRefs } from "../message/forward-refs.ts";
import type { ChatMessage } from "../message/inbound.ts";
import { findReplyId } from "../message/render.ts";
import type { QuoteSource } from "./quote-resolver.ts";

/** What a message points at, when it replies to something or carries forwards. */
export function quoteSourceOf(message: ChatMessage): QuoteSource | undefined {
  const replyId = findReplyId(message.segments);
  const refs = forwardRefs(message.segments);
  const forwardIds = [...new Set(refs.map((ref) => ref.id).filter((id) => id !== ""))];
  if (replyId === undefined && forwardIds.length === 0) return undefined;
  const inline = new Map(refs.flatMap((ref) => (ref.inline ? [[ref.id, ref.inline] as const] : [])));
  return {
    ...(replyId === undefined ? {} : { replyId }),
    forwardIds,
    ...(inline.size > 0 ? { inline } : {}),
  };
}

/**
 * The one message of a batch whose quote is resolved: the last that replies to something or
 * carries forwards. What earlier messages of the same burst reply to is not fetched.
 */
export function findQuoteMessage(messages: ChatMessage[]): ChatMessage | undefined {
  return messages.findLast((message) => quoteSourceOf(message) !== undefined);
}
