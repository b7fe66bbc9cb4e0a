import type { Logger } from "../../log/logger.ts";
import { errorMessage } from "../../util/values.ts";
import { ReconnectBackoff } from "../onebot/reconnect-backoff.ts";
import { isAccessTokenAnswer, validationProblem } from "./wire.ts";

export interface AccessTokenOptions {
  appId: string;
  secret: string;
  tokenUrl: string;
  timeoutMs: number;
  /** Told when a token is held or lost (the account can send, or cannot). */
  changed: (held: boolean) => void;
  logger: Logger;
  now?: () => number;
}

/**
 * The platform hands out a new token only in the last minute of the current one's life (before
 * that it answers with the same token), so the refresh is planned inside that minute, with
 * time left for a retry.
 */
export const REFRESH_BEFORE_EXPIRY_MS = 50_000;
const RETRY_BACKOFF = { minDelayMs: 1_000, maxDelayMs: 60_000 };

/** The bot's access token, bought with the AppID and AppSecret and renewed before it expires. */
export class AccessTokenSource {
  readonly #options: AccessTokenOptions;
  readonly #backoff = new ReconnectBackoff(RETRY_BACKOFF);
  readonly #now: () => number;
  #token: { value: string; expiresAt: number } | undefined;
  #timer: NodeJS.Timeout | undefined;
  #running = false;
  #pending: Promise<void> | undefined;
  #held = false;

  constructor(options: AccessTokenOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  start(): void {
    this.#running = true;
    void this.#refresh();
  }

  stop(): void {
    this.#running = false;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** The current token; fetches one first when none is held (or it has expired). */
  async current(): Promise<string> {
    if (!this.#valid()) await (this.#pending ?? this.#refresh());
    if (!this.#token || !this.#valid())
      throw new Error("no access token: the token endpoint did not answer with one");
    return this.#token.value;
  }

  #valid(): boolean {
    return this.#token !== undefined && this.#token.expiresAt > this.#now();
  }

  #refresh(): Promise<void> {
    this.#pending ??= this.#fetch().finally(() => {
      this.#pending = undefined;
    });
    return this.#pending;
  }

  async #fetch(): Promise<void> {
    const { appId, secret, tokenUrl, timeoutMs, logger } = this.#options;
    try {
      const response = await fetch(tokenUrl, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ appId, clientSecret: secret }),
        signal: AbortSignal.timeout(timeoutMs),
      });
      const answer: unknown = await response.json().catch(() => undefined);
      if (!isAccessTokenAnswer(answer)) {
        // The platform answers a wrong AppID or AppSecret with its own code and message.
        const said = answer && typeof answer === "object" ? JSON.stringify(answer).slice(0, 200) : "";
        throw new Error(
          `HTTP ${response.status}${said ? ` ${said}` : `, ${validationProblem(isAccessTokenAnswer)}`}`,
        );
      }
      const lifetimeMs = Number(answer.expires_in) * 1000;
      this.#token = { value: answer.access_token, expiresAt: this.#now() + lifetimeMs };
      this.#backoff.reset();
      logger.info({ expiresInS: lifetimeMs / 1000 }, "qq-official access token received");
      this.#setHeld(true);
      this.#schedule(Math.max(1_000, lifetimeMs - REFRESH_BEFORE_EXPIRY_MS));
    } catch (error) {
      const delayMs = this.#backoff.nextDelayMs();
      logger.warn(
        { tokenUrl, delayMs, why: errorMessage(error) },
        "qq-official access token not received, retrying",
      );
      this.#setHeld(this.#valid());
      this.#schedule(delayMs);
    }
  }

  #setHeld(held: boolean): void {
    if (held === this.#held) return;
    this.#held = held;
    this.#options.changed(held);
  }

  #schedule(delayMs: number): void {
    clearTimeout(this.#timer);
    if (!this.#running) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      // A token that expires before the next try counts as lost now.
      this.#setHeld(this.#valid());
      void this.#refresh();
    }, delayMs);
  }
}
