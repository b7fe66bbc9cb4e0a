import type { Logger } from "../log/logger.ts";
import type { ChatMessage } from "../message/inbound.ts";
import type { MessageStore } from "../store/types.ts";

/** How long an accepted message event is remembered: the same event again within it is dropped. */
export const DELIVERY_WINDOW_MS = 30 * 60_000;

/**
 * Most events remembered at once (about 2.5 MB); beyond it the oldest go first, so heavy
 * traffic shortens the window. Repeats from implementations come within seconds.
 */
export const MAX_REMEMBERED_DELIVERIES = 10_000;

/**
 * Which platform message events were already accepted. The same event can come again: an
 * implementation re-sending after a reconnect or posting to two endpoints, or anyone replaying
 * a signed HTTP event. Each must be stored once and start at most one turn.
 */
export interface DeliveryLedger {
  /** Records the message's event: true the first time within the window, false for a repeat. */
  claim(message: ChatMessage): boolean | Promise<boolean>;
}

/**
 * Account and chat (the session), message id, and the sender: an implementation may reuse a
 * message id (NapCat after a restart), so the sender keeps another member's message apart.
 */
export function deliveryKey(message: ChatMessage): string {
  return `${message.sessionId}\n${message.messageId}\n${message.userId}`;
}

/** The events this process accepted within the window, newest last, bounded in number. */
export class RecentDeliveries {
  /** key → when it was accepted; a Map keeps insertion order, which is acceptance order. */
  readonly #accepted = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  /** True when `key` was not accepted within the window (it is now), false for a repeat. */
  remember(key: string): boolean {
    const now = this.now();
    for (const [oldest, acceptedAt] of this.#accepted) {
      if (acceptedAt > now - DELIVERY_WINDOW_MS && this.#accepted.size < MAX_REMEMBERED_DELIVERIES) break;
      this.#accepted.delete(oldest);
    }
    if (this.#accepted.has(key)) return false;
    this.#accepted.set(key, now);
    return true;
  }
}

/** OneBot event times are whole seconds: an event this much older than the start came before it. */
const EVENT_TIME_RESOLUTION_MS = 1_000;

/**
 * The ledger of a bot without a cluster: this process's memory, and for an event dated before
 * the process started (a replay after a restart) the message store. Events of this run never
 * wait for the store, so ingest stays as fast as before.
 */
export class LocalDeliveryLedger implements DeliveryLedger {
  readonly #recent = new RecentDeliveries();
  readonly #startedAt = Date.now();

  constructor(
    private readonly store: Pick<MessageStore, "findByMessageId">,
    private readonly logger: Logger,
  ) {}

  claim(message: ChatMessage): boolean | Promise<boolean> {
    if (!this.#recent.remember(deliveryKey(message))) return false;
    if (message.time + EVENT_TIME_RESOLUTION_MS > this.#startedAt) return true;
    return this.store.findByMessageId(message.sessionId, message.messageId).then(
      (stored) => stored?.userId !== message.userId,
      (error: unknown) => {
        // Taking a message twice beats losing it.
        this.logger.warn(
          { err: error, sessionId: message.sessionId, messageId: message.messageId },
          "could not check whether a message event was taken in before the restart; taking it",
        );
        return true;
      },
    );
  }
}
