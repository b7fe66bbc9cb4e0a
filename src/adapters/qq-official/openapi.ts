import type { Logger } from "../../log/logger.ts";
import { describeFetchError } from "../../util/fetch-error.ts";
import { isRecord } from "../../util/values.ts";
import type { AccessTokenSource } from "./access-token.ts";

export interface OpenApiOptions {
  apiBase: string;
  appId: string;
  tokens: AccessTokenSource;
  timeoutMs: number;
  /** Told when the platform starts or stops refusing sends for their rate (until: Unix ms). */
  rateLimitChanged: (until: number | undefined) => void;
  logger: Logger;
  now?: () => number;
}

/** How long sends pause after a rate refusal that names no time. */
const DEFAULT_RATE_PAUSE_MS = 60_000;
/** The platform's codes for "too many messages" (频率/超频限制) on a 200 answer. */
const RATE_LIMIT_CODES = new Set([22009, 40034028, 304045]);

/** The platform answered and refused: sending the same again would be refused the same way. */
export class OpenApiRefusal extends Error {
  readonly refused = true;
  readonly status: number;
  readonly code: number | undefined;

  constructor(message: string, status: number, code?: number) {
    super(message);
    this.name = "OpenApiRefusal";
    this.status = status;
    this.code = code;
  }
}

/** The request never reached the platform: nothing was sent. */
class OpenApiUnreachable extends Error {
  readonly notSent = true;
}

/** QQ's bot OpenAPI: JSON POSTs with the access token, the platform's rate refusals honoured. */
export class OpenApi {
  readonly #options: OpenApiOptions;
  readonly #apiBase: string;
  readonly #now: () => number;
  #limitedUntil: number | undefined;

  constructor(options: OpenApiOptions) {
    this.#options = options;
    this.#apiBase = options.apiBase.replace(/\/+$/, "");
    this.#now = options.now ?? Date.now;
  }

  /** Unix ms until which sends are paused for their rate, or undefined. */
  limitedUntil(): number | undefined {
    if (this.#limitedUntil !== undefined && this.#limitedUntil <= this.#now()) {
      this.#limitedUntil = undefined;
      this.#options.rateLimitChanged(undefined);
    }
    return this.#limitedUntil;
  }

  async post(path: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
    const until = this.limitedUntil();
    if (until !== undefined) {
      throw new OpenApiRefusal(`rate-limited by the platform until ${new Date(until).toISOString()}`, 429);
    }
    const token = await this.#options.tokens.current().catch((error: Error) => {
      throw new OpenApiUnreachable(error.message);
    });
    let response: Response;
    try {
      response = await fetch(`${this.#apiBase}${path}`, {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          Authorization: `QQBot ${token}`,
          "X-Union-Appid": this.#options.appId,
        },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.#options.timeoutMs),
      });
    } catch (error) {
      if ((error as Error).name === "TimeoutError")
        throw new Error(`${path}: no answer within ${this.#options.timeoutMs} ms`);
      throw new OpenApiUnreachable(`${path}: ${describeFetchError(error)}`);
    }
    const answer: unknown = await response.json().catch(() => undefined);
    const code = isRecord(answer) && typeof answer.code === "number" ? answer.code : undefined;
    const said = isRecord(answer) && typeof answer.message === "string" ? answer.message : "";
    if (response.status === 429 || (code !== undefined && RATE_LIMIT_CODES.has(code))) {
      this.#limit(retryAfterMs(response.headers.get("retry-after")));
      throw new OpenApiRefusal(
        `${path}: rate-limited (HTTP ${response.status}${code ? `, code ${code}` : ""}) ${said}`,
        response.status,
        code,
      );
    }
    if (!response.ok || (code !== undefined && code !== 0) || !isRecord(answer)) {
      throw new OpenApiRefusal(
        `${path}: HTTP ${response.status}${code ? `, code ${code}` : ""} ${said}`.trim(),
        response.status,
        code,
      );
    }
    return answer;
  }

  #limit(pauseMs: number): void {
    this.#limitedUntil = this.#now() + pauseMs;
    this.#options.logger.warn(
      { until: new Date(this.#limitedUntil).toISOString() },
      "qq-official sends paused: rate limit",
    );
    this.#options.rateLimitChanged(this.#limitedUntil);
  }
}

function retryAfterMs(header: string | null): number {
  const seconds = header === null ? Number.NaN : Number(header);
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : DEFAULT_RATE_PAUSE_MS;
}
