import type { Logger } from "../log/logger.ts";
import type { ChatMessage } from "../message/inbound.ts";
import type { MessageStore } from "../store/types.ts";

/** How many of the chat's recent messages are searched for a poker's name. */
const NAME_SEARCH_MESSAGES = 50;

/**
 * A poke with its poker's name: poke notices name nobody, so the name the poker last went by
 * in the chat's recent messages is taken (the id stays when they said nothing lately, or the
 * store cannot be read). Other messages are returned as they are, without a store read.
 */
export async function withPokerNamed(
  message: ChatMessage,
  store: Pick<MessageStore, "recent">,
  logger: Logger,
): Promise<ChatMessage> {
  if (message.notice === undefined) return message;
  try {
    const recent = await store.recent({ sessionId: message.sessionId, limit: NAME_SEARCH_MESSAGES });
    const spoken = recent.findLast((seen) => seen.userId === message.userId && seen.notice === undefined);
    return spoken ? { ...message, senderName: spoken.senderName } : message;
  } catch (error) {
    logger.warn({ err: error, sessionId: message.sessionId }, "could not read a poker's name; shown by id");
    return message;
  }
}
