import type { Redis } from "ioredis";
import {
  DELIVERY_WINDOW_MS,
  type DeliveryLedger,
  deliveryKey,
  RecentDeliveries,
} from "../chat/delivery-ledger.ts";
import type { Logger } from "../log/logger.ts";
import type { ChatMessage } from "../message/inbound.ts";
import type { ClusterKeys } from "./keys.ts";

export interface SharedDeliveryParts {
  redis: Redis;
  keys: ClusterKeys;
  logger: Logger;
}

/**
 * The ledger of a cluster: an event's key is set in Redis with `SET NX PX` by the first
 * instance to take it in, so the same event reaching another instance (an implementation that
 * reconnected there, an HTTP event posted to each) is dropped there too. Repeats reaching this
 * instance are caught in its memory first, also while Redis is unreachable; then an event
 * repeated on another instance may be taken in twice, which beats losing messages.
 */
export class SharedDeliveryLedger implements DeliveryLedger {
  readonly #recent = new RecentDeliveries();
  /** Set while Redis fails, so an outage is one log line. */
  #failing = false;

  constructor(private readonly parts: SharedDeliveryParts) {}

  claim(message: ChatMessage): boolean | Promise<boolean> {
    const key = deliveryKey(message);
    if (!this.#recent.remember(key)) return false;
    const { redis, keys, logger } = this.parts;
    return redis.set(keys.shared(`delivered:${key}`), "1", "PX", DELIVERY_WINDOW_MS, "NX").then(
      (answer) => {
        this.#failing = false;
        return answer === "OK";
      },
      (error: unknown) => {
        if (!this.#failing) {
          logger.warn(
            { err: error },
            "cannot reach Redis; repeated message events are caught by this instance only",
          );
        }
        this.#failing = true;
        return true;
      },
    );
  }
}
