import type { IncomingMessage, ServerResponse } from "node:http";
import { type Logger, scrubText } from "../../log/logger.ts";
import { idToString } from "../../message/onebot-values.ts";
import type { HttpRoutes } from "../../server/routes.ts";
import { describeFetchError } from "../../util/fetch-error.ts";
import { parseJsonLossless } from "../../util/json.ts";
import { isRecord } from "../../util/values.ts";
import { actionDisconnected, actionTimedOut, settleActionResponse } from "./action-error.ts";
import { parseFrame } from "./frame.ts";
import { signatureMatches } from "./http-signature.ts";
import { ReconnectBackoff } from "./reconnect-backoff.ts";
import type { ActionCall, OneBotTransport, TransportSink } from "./transport.ts";

export interface HttpModeOptions {
  /** Where the implementation POSTs events to us. */
  path: string;
  /** The implementation's HTTP API base url. */
  url: string;
  accessToken: string | undefined;
  secret: string | undefined;
  actionTimeoutMs: number;
  routes: HttpRoutes;
  sink: TransportSink;
  logger: Logger;
}

/** Back-off between probes of an unreachable API (http mode has no `reconnect` config keys). */
const PROBE_BACKOFF = { minDelayMs: 1_000, maxDelayMs: 30_000 };

/**
 * Largest event POST read. Only events arrive here (action answers come back on our own
 * requests), and NapCat's are a few KB: pictures, voice and files are URLs, forwards an id.
 */
export const MAX_EVENT_POST_BYTES = 1024 * 1024;

/** An implementation sends an event in one write; a body still arriving after this is cut off. */
export const EVENT_BODY_TIMEOUT_MS = 5_000;

/**
 * OneBot over plain HTTP: actions are POSTed to `${url}/${action}`, events arrive as POSTs
 * on our `path`. HTTP has no connection, so "connected" means the API answered: it is probed
 * with `get_login_info` (with backoff) until it does, and again after a request fails to reach it.
 */
export class HttpTransport implements OneBotTransport {
  readonly #options: HttpModeOptions;
  readonly #apiBase: string;
  readonly #backoff: ReconnectBackoff;
  #selfId: string | undefined;
  #reachable = false;
  #running = false;
  #probeTimer: NodeJS.Timeout | undefined;
  #removeRoute: (() => void) | undefined;

  constructor(options: HttpModeOptions) {
    this.#options = options;
    this.#apiBase = options.url.replace(/\/+$/, "");
    this.#backoff = new ReconnectBackoff(PROBE_BACKOFF);
  }

  async start(): Promise<void> {
    this.#running = true;
    this.#removeRoute = this.#options.routes.onPost(
      this.#options.path,
      (request, body, response) => this.#receiveEvent(request, body, response),
      {
        maxBodyBytes: MAX_EVENT_POST_BYTES,
        bodyTimeoutMs: EVENT_BODY_TIMEOUT_MS,
        // Without a secret nothing else tells NapCat (no Origin, Host 127.0.0.1:port) from a web page.
        ownOriginOnly: this.#options.secret === undefined,
      },
    );
    void this.#probe();
  }

  async stop(): Promise<void> {
    this.#running = false;
    clearTimeout(this.#probeTimer);
    this.#probeTimer = undefined;
    this.#removeRoute?.();
    this.#removeRoute = undefined;
  }

  async callAction({ selfId, action, params, timeoutMs }: ActionCall): Promise<unknown> {
    if (!this.#running || this.#selfId !== selfId) {
      throw actionDisconnected(action, `no OneBot HTTP API known for self id ${selfId}`, true);
    }
    return this.#request(action, params, timeoutMs);
  }

  async #request(action: string, params: Record<string, unknown>, timeoutMs: number): Promise<unknown> {
    const { accessToken } = this.#options;
    let status: number;
    let text: string;
    try {
      const response = await fetch(`${this.#apiBase}/${encodeURIComponent(action)}`, {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          ...(accessToken ? { Authorization: `Bearer ${accessToken}` } : {}),
        },
        body: JSON.stringify(params),
        signal: AbortSignal.timeout(timeoutMs),
      });
      status = response.status;
      text = await response.text();
    } catch (error) {
      if ((error as Error).name === "TimeoutError") throw actionTimedOut(action, timeoutMs);
      const why = describeFetchError(error);
      this.#markUnreachable(why);
      throw actionDisconnected(action, `HTTP request failed: ${why}`);
    }
    this.#markReachable();
    return settleActionResponse(action, parseBody(text), status);
  }

  async #probe(): Promise<void> {
    if (!this.#running || this.#reachable) return;
    try {
      const info = await this.#request("get_login_info", {}, this.#options.actionTimeoutMs);
      const selfId = isRecord(info) ? idToString(info.user_id) : undefined;
      if (!selfId) throw new Error("get_login_info answered without user_id");
      this.#selfId = selfId;
      this.#markReachable();
    } catch (error) {
      this.#scheduleProbe((error as Error).message);
    }
  }

  #scheduleProbe(why: string): void {
    if (!this.#running || this.#probeTimer) return;
    const delayMs = this.#backoff.nextDelayMs();
    this.#options.logger.info(
      { url: scrubText(this.#apiBase), delayMs, why },
      "onebot HTTP API not reachable, retrying",
    );
    this.#probeTimer = setTimeout(() => {
      this.#probeTimer = undefined;
      void this.#probe();
    }, delayMs);
  }

  #markReachable(): void {
    if (this.#reachable || !this.#selfId || !this.#running) return;
    this.#reachable = true;
    this.#backoff.reset();
    this.#options.sink.connection({
      selfId: this.#selfId,
      change: "opened",
      accountConnected: true,
      details: { mode: "http", url: scrubText(this.#apiBase) },
    });
  }

  #markUnreachable(why: string): void {
    if (!this.#reachable || !this.#selfId) return;
    this.#reachable = false;
    this.#options.sink.connection({
      selfId: this.#selfId,
      change: "closed",
      accountConnected: false,
      details: { mode: "http", reason: why },
    });
    this.#scheduleProbe(why);
  }

  #receiveEvent(request: IncomingMessage, body: Buffer, response: ServerResponse): void {
    const { secret, logger, sink } = this.#options;
    if (secret && !signatureMatches(body, request.headers["x-signature"], secret)) {
      logger.warn(
        { remote: request.socket.remoteAddress },
        "onebot event rejected: bad or missing X-Signature",
      );
      response.writeHead(401).end();
      return;
    }
    const parsed = parseFrame(body.toString("utf8"));
    if (!parsed.ok || !("post_type" in parsed.frame)) {
      const problem = parsed.ok ? "no post_type" : parsed.problem;
      logger.warn({ problem, sample: parsed.ok ? undefined : parsed.sample }, "onebot event POST ignored");
      response.writeHead(400).end();
      return;
    }
    // 204: no quick operation; replies go through the API like in every other mode.
    response.writeHead(204).end();
    const header = request.headers["x-self-id"];
    const selfId = idToString(parsed.frame.self_id) ?? (typeof header === "string" ? header : undefined);
    if (selfId && !this.#selfId) this.#selfId = selfId;
    sink.event(parsed.frame, selfId);
  }
}

function parseBody(text: string): unknown {
  try {
    return parseJsonLossless(text);
  } catch {
    return undefined;
  }
}
