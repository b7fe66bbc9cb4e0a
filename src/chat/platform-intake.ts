import type { Logger } from "../log/logger.ts";
import type { ChatMessage } from "../message/inbound.ts";
import type { Arrival } from "./chat-service.ts";
import type { DeliveryLedger } from "./delivery-ledger.ts";
import type { StageStep } from "./stage-path.ts";

export interface PlatformIntakeParts {
  ledger: DeliveryLedger;
  /** Whether `userId` is an account the bot itself runs on `platform` (any adapter, any instance). */
  isOwnAccount(platform: string, userId: string): boolean;
  logger: Logger;
}

/**
 * Where messages from chat platforms enter the bot (the accept stage). An event already taken
 * in is dropped (see DeliveryLedger), and a message from another account the bot runs is taken
 * in as the bot's own: history for the chat, never a trigger, a command or a member's message,
 * so two of its accounts in one group do not answer each other.
 */
export class PlatformIntake {
  constructor(private readonly parts: PlatformIntakeParts) {}

  accept(arrival: Arrival): StageStep<Arrival> | Promise<StageStep<Arrival>> {
    const message = this.#asOwnWhenOwn(arrival.message);
    const claim = this.parts.ledger.claim(message);
    if (typeof claim === "boolean") return this.#settle(message, claim);
    return claim.then((first) => this.#settle(message, first));
  }

  #asOwnWhenOwn(message: ChatMessage): ChatMessage {
    if (message.fromSelf || !this.parts.isOwnAccount(message.platform, message.userId)) return message;
    this.parts.logger.debug(
      { sessionId: message.sessionId, messageId: message.messageId, account: message.userId },
      "message from another of the bot's accounts: kept as the bot's own",
    );
    return { ...message, fromSelf: true };
  }

  #settle(message: ChatMessage, first: boolean): StageStep<Arrival> {
    if (first) return { go: { message } };
    this.parts.logger.info(
      { sessionId: message.sessionId, messageId: message.messageId, sender: message.userId },
      "repeated message event dropped",
    );
    return { stop: "a repeated event" };
  }
}
