import type { Logger } from "../log/logger.ts";
import type { ChatMessage } from "../message/inbound.ts";
import type { DeliveryLedger } from "./delivery-ledger.ts";
import { KeyedQueue } from "./keyed-queue.ts";

export interface PlatformIntakeParts {
  /** Where an accepted message goes (ChatService.ingest; in a cluster, the session's owner). */
  deliver(message: ChatMessage): void;
  ledger: DeliveryLedger;
  /** Whether `userId` is an account the bot itself runs on `platform` (any adapter, any instance). */
  isOwnAccount(platform: string, userId: string): boolean;
  logger: Logger;
}

/**
 * Where messages from chat platforms enter the bot. An event already taken in is dropped
 * (see DeliveryLedger), and a message from another account the bot runs is taken in as the
 * bot's own: history for the chat, never a trigger, a command or a member's message, so two
 * of its accounts in one group do not answer each other. Each session's messages go on in
 * the order they came, also while a ledger answer is awaited.
 */
export class PlatformIntake {
  readonly #waiting: KeyedQueue;

  constructor(private readonly parts: PlatformIntakeParts) {
    this.#waiting = new KeyedQueue((sessionId, error) =>
      parts.logger.error({ err: error, sessionId }, "could not take a message in"),
    );
  }

  take(message: ChatMessage): void {
    const { ledger } = this.parts;
    const taken = this.#asOwnWhenOwn(message);
    if (this.#waiting.has(taken.sessionId)) {
      void this.#waiting.push(taken.sessionId, async () => this.#settle(taken, await ledger.claim(taken)));
      return;
    }
    const claim = ledger.claim(taken);
    if (typeof claim === "boolean") this.#settle(taken, claim);
    else void this.#waiting.push(taken.sessionId, async () => this.#settle(taken, await claim));
  }

  #asOwnWhenOwn(message: ChatMessage): ChatMessage {
    if (message.fromSelf || !this.parts.isOwnAccount(message.platform, message.userId)) return message;
    this.parts.logger.debug(
      { sessionId: message.sessionId, messageId: message.messageId, account: message.userId },
      "message from another of the bot's accounts: kept as the bot's own",
    );
    return { ...message, fromSelf: true };
  }

  #settle(message: ChatMessage, first: boolean): void {
    if (first) {
      this.parts.deliver(message);
      return;
    }
    this.parts.logger.info(
      { sessionId: message.sessionId, messageId: message.messageId, sender: message.userId },
      "repeated message event dropped",
    );
  }
}
