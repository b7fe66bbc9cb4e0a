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
    const { redis, keys } = this.parts;
    const answer = redis.set(keys.shared(`delivered:${key}`), "1", "PX", DELIVERY_WINDOW_MS, "NX").then(
      (reply) => {
        this.#failing = false;
        return reply === "OK";
      },
      (error: unknown) => this.#failed(error),
    );
    // While Redis fails, messages do not wait for it (the key is still set, to notice its return);
    // a Redis that hangs holds up a message at most DEDUPE_WAIT_MS: taking it twice beats waiting.
    if (this.#failing) return true;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        resolve(this.#failed(new Error(`Redis did not answer within ${DEDUPE_WAIT_MS} ms`)));
      }, DEDUPE_WAIT_MS);
      void answer.then((taken) => {
        clearTimeout(timer);
        resolve(taken);
      });
    });
  }

  /** Takes the message in: one log line per outage. */
  #failed(error: unknown): true {
    if (!this.#failing) {
      this.parts.logger.warn(
        { err: error },
        "cannot reach Redis; repeated message events are caught by this instance only",
      );
    }
    this.#failing = true;
    return true;
  }
}

/** The longest a message waits for Redis to say whether another instance took it in. */
const DEDUPE_WAIT_MS = 1_000;
