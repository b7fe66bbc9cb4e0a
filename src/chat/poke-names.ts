import type { Logger } from "../log/logger.ts";
import type { ChatMessage } from "../message/inbound.ts";
import type { MessageStore } from "../store/types.ts";

/** How many of the chat's recent messages are searched for a poker's name. */
const NAME_SEARCH_MESSAGES = 50;

/**
 * Wraps an adapter's delivery so a poke carries its poker's name: poke notices name nobody, so
 * the name the poker last went by in the chat's recent messages is taken (the id stays when
 * they said nothing lately). Messages go on at once, in order; only pokes wait for the lookup.
 */
export function deliverPokesNamed(
  deliver: (message: ChatMessage) => void,
  store: Pick<MessageStore, "recent">,
  logger: Logger,
): (message: ChatMessage) => void {
  return (message) => {
    if (message.notice === undefined) {
      deliver(message);
      return;
    }
    store
      .recent({ sessionId: message.sessionId, limit: NAME_SEARCH_MESSAGES })
      .then(
        (recent) => {
          const spoken = recent.findLast(
            (seen) => seen.userId === message.userId && seen.notice === undefined,
          );
          return spoken ? { ...message, senderName: spoken.senderName } : message;
        },
        (error: unknown) => {
          logger.warn(
            { err: error, sessionId: message.sessionId },
            "could not read a poker's name; shown by id",
          );
          return message;
        },
      )
      .then(deliver)
      .catch((error: unknown) => {
        // Only when the bot is shutting down: the chat stage no longer takes messages.
        logger.warn({ err: error, sessionId: message.sessionId }, "a poke arrived too late to be handled");
      });
  };
}
