import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { Logger } from "../log/logger.ts";

/**
 * A sealed message is refused when it is older than this (a captured one replayed later), so
 * an envelope waiting in the inbox of a whole cluster that is down longer than this is dropped.
 */
const MAX_AGE_MS = 5 * 60_000;
/** How far ahead of this instance's clock a sender's clock may run. */
const MAX_SKEW_MS = 60_000;
/** A kind of refusal at one place is logged again after this long at the soonest, with a count. */
const REPORT_AGAIN_MS = 10 * 60_000;

/** `v1.<unix ms>.<nonce>.<mac>.` and then the message's own bytes. */
const SEALED = /^v1\.(\d{1,15})\.([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})\./;

/** Why a message was refused. */
type Refusal = "unsigned" | "forged" | "stale" | "replayed";

const REFUSALS: Record<Refusal, string> = {
  unsigned:
    "refused a cluster message without a signature (an instance without cluster.secret, or not an instance)",
  forged:
    "refused a cluster message whose signature does not match cluster.secret (another secret, or forged)",
  stale: "refused a cluster message signed too long ago (a replay, or clocks far apart)",
  replayed: "refused a cluster message received before (a replay)",
};

/**
 * Signs what instances send each other through Redis and checks what they receive, so that
 * holding Redis is not enough to speak for an instance: HMAC-SHA256 with `cluster.secret` over
 * the place it is sent to (a channel, an inbox), the time, a nonce and the message's exact
 * bytes. A message is refused before it is parsed when the signature does not match, when it
 * is older than MAX_AGE_MS, or when its nonce was seen already (replayed within that time).
 */
export class ClusterSeal {
  /** Nonces accepted, with when they can be forgotten (in that order: a Map keeps insertion order). */
  readonly #seen = new Map<string, number>();
  /** Per refusal kind and place: when it was last logged and how many were refused since. */
  readonly #reported = new Map<string, { at: number; since: number }>();

  constructor(
    private readonly secret: string,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** `message` as it is sent to `place` (a channel or inbox key). */
  seal(place: string, message: string): string {
    const time = String(this.now());
    const nonce = randomBytes(16).toString("base64url");
    return `v1.${time}.${nonce}.${this.#mac(place, time, nonce, message)}.${message}`;
  }

  /** The message sealed for `place`, or undefined (logged, at most once a while per kind) when refused. */
  open(place: string, sealed: string): string | undefined {
    const parts = SEALED.exec(sealed);
    if (!parts) return this.#refuse("unsigned", place);
    const [head, time, nonce, mac] = parts as unknown as [string, string, string, string];
    const message = sealed.slice(head.length);
    const expected = Buffer.from(this.#mac(place, time, nonce, message), "base64url");
    if (!timingSafeEqual(expected, Buffer.from(mac, "base64url"))) return this.#refuse("forged", place);
    const now = this.now();
    const age = now - Number(time);
    if (age > MAX_AGE_MS || age < -MAX_SKEW_MS) return this.#refuse("stale", place);
    this.#forgetOld(now);
    if (this.#seen.has(nonce)) return this.#refuse("replayed", place);
    // Kept until its time is out of the window whatever the sender's clock said.
    this.#seen.set(nonce, now + MAX_AGE_MS + MAX_SKEW_MS);
    return message;
  }

  #mac(place: string, time: string, nonce: string, message: string): string {
    return createHmac("sha256", this.secret)
      .update(`${place}\n${time}\n${nonce}\n`)
      .update(message)
      .digest("base64url");
  }

  #forgetOld(now: number): void {
    for (const [nonce, until] of this.#seen) {
      if (until > now) break;
      this.#seen.delete(nonce);
    }
  }

  #refuse(refusal: Refusal, place: string): undefined {
    const key = `${refusal} ${place}`;
    const now = this.now();
    const reported = this.#reported.get(key);
    if (reported && now - reported.at < REPORT_AGAIN_MS) {
      reported.since++;
      return undefined;
    }
    this.logger.warn({ place, ...(reported && { refusedSinceLastLine: reported.since }) }, REFUSALS[refusal]);
    this.#reported.set(key, { at: now, since: 0 });
    return undefined;
  }
}
