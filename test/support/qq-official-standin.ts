/**
 * A stand-in for QQ's official bot platform, built from its public documentation:
 * - the token endpoint (`POST /app/getAppAccessToken`, `{appId, clientSecret}` →
 *   `{access_token, expires_in}` with expires_in as a string, as botpy's robot.py reads it);
 * - the OpenAPI send and upload endpoints (`/v2/groups/{group_openid}/messages|files`,
 *   `/v2/users/{openid}/messages|files`, botpy api.py), which require
 *   `Authorization: QQBot {token}` (botpy http.py) and answer `{id, timestamp}` / `{file_info}`;
 * - the webhook sender: payloads `{id, op, d, s, t}` POSTed with X-Signature-Ed25519 (hex) over
 *   X-Signature-Timestamp + body, the key's seed being the AppSecret repeated to 32 bytes
 *   (bot-docs, docs/develop/api-v2/dev-prepare/interface-framework/event-emit.md and sign.md).
 * The signing here is written from the documentation, independently of the adapter's.
 */
import { createPrivateKey, type KeyObject, sign } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { waitFor } from "./wait.ts";

export interface TokenRequest {
  at: number;
  appId: unknown;
  clientSecret: unknown;
}

export interface OpenApiCall {
  path: string;
  token: string | undefined;
  appIdHeader: string | undefined;
  body: Record<string, unknown>;
}

export interface QqOfficialStandInOptions {
  appId: string;
  secret: string;
  /** Seconds each token lives (default 7200). */
  tokenLifetimeS?: number;
}

const PKCS8_ED25519_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");

export class QqOfficialStandIn {
  readonly tokenRequests: TokenRequest[] = [];
  readonly calls: OpenApiCall[] = [];
  readonly #options: QqOfficialStandInOptions;
  readonly #server: Server;
  readonly #key: KeyObject;
  readonly #validTokens = new Set<string>();
  #nextRateLimit: string | undefined;
  #messageCount = 0;

  private constructor(options: QqOfficialStandInOptions, server: Server) {
    this.#options = options;
    this.#server = server;
    let seed = options.secret;
    while (seed.length < 32) seed = seed.repeat(2);
    this.#key = createPrivateKey({
      key: Buffer.concat([PKCS8_ED25519_PREFIX, Buffer.from(seed.slice(0, 32))]),
      format: "der",
      type: "pkcs8",
    });
  }

  static async start(options: QqOfficialStandInOptions): Promise<QqOfficialStandIn> {
    const server = createServer();
    const standin = new QqOfficialStandIn(options, server);
    server.on("request", (request, response) => {
      void readJson(request).then((body) => {
        const { status, answer, headers } = standin.#answer(request, body);
        response
          .writeHead(status, { "Content-Type": "application/json", ...headers })
          .end(JSON.stringify(answer));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return standin;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  get tokenUrl(): string {
    return `${this.baseUrl}/app/getAppAccessToken`;
  }

  /** The next send answers HTTP 429 with this Retry-After (seconds). */
  rateLimitNext(retryAfterS: string): void {
    this.#nextRateLimit = retryAfterS;
  }

  sends(): OpenApiCall[] {
    return this.calls.filter((call) => call.path.endsWith("/messages"));
  }

  async waitForSend(count = 1, timeoutMs = 5_000): Promise<OpenApiCall> {
    await waitFor(() => this.sends().length >= count, timeoutMs);
    return this.sends()[count - 1]!;
  }

  /** Hex signature of timestamp + body, as the platform signs its webhook POSTs. */
  signature(timestamp: string, body: string): string {
    return sign(null, Buffer.from(timestamp + body), this.#key).toString("hex");
  }

  /**
   * POSTs a payload to the bot's webhook, signed unless `signature` says otherwise, at
   * `signedAt` (Unix ms; now by default). Ed25519 signatures are deterministic: the same
   * payload at the same `signedAt` is byte for byte the request a replay would send.
   */
  async post(
    url: string,
    payload: Record<string, unknown>,
    signature: "good" | "forged" | "none" = "good",
    signedAt = Date.now(),
  ): Promise<{ status: number; body: string }> {
    const body = JSON.stringify(payload);
    const timestamp = String(Math.floor(signedAt / 1000));
    const headers: Record<string, string> = {
      "Content-Type": "application/json",
      "User-Agent": "QQBot-Callback",
      "X-Bot-Appid": this.#options.appId,
    };
    if (signature !== "none") {
      headers["X-Signature-Timestamp"] = timestamp;
      headers["X-Signature-Method"] = "Ed25519";
      // A forged event: signed over a different body than the one sent.
      headers["X-Signature-Ed25519"] = this.signature(timestamp, signature === "good" ? body : `${body} `);
    }
    const response = await fetch(url, { method: "POST", headers, body });
    return { status: response.status, body: await response.text() };
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #answer(
    request: IncomingMessage,
    body: Record<string, unknown>,
  ): { status: number; answer: unknown; headers?: Record<string, string> } {
    const path = request.url ?? "";
    if (path === "/app/getAppAccessToken") {
      this.tokenRequests.push({ at: Date.now(), appId: body.appId, clientSecret: body.clientSecret });
      if (body.appId !== this.#options.appId || body.clientSecret !== this.#options.secret) {
        return { status: 200, answer: { code: 100016, message: "invalid appid or secret" } };
      }
      const token = `token-${this.tokenRequests.length}`;
      this.#validTokens.add(token);
      return {
        status: 200,
        answer: { access_token: token, expires_in: String(this.#options.tokenLifetimeS ?? 7200) },
      };
    }
    const authorization = request.headers.authorization;
    const token = authorization?.startsWith("QQBot ") ? authorization.slice(6) : undefined;
    const appIdHeader = request.headers["x-union-appid"] as string | undefined;
    if (!token || !this.#validTokens.has(token)) {
      return { status: 401, answer: { code: 11244, message: "token not exist or expire" } };
    }
    this.calls.push({ path, token, appIdHeader, body });
    if (path.endsWith("/messages") && this.#nextRateLimit !== undefined) {
      const retryAfter = this.#nextRateLimit;
      this.#nextRateLimit = undefined;
      return {
        status: 429,
        answer: { code: 22009, message: "msg limit exceed" },
        headers: { "Retry-After": retryAfter },
      };
    }
    if (path.endsWith("/files"))
      return { status: 200, answer: { file_uuid: "uuid-1", file_info: "file-info-1", ttl: 0 } };
    this.#messageCount += 1;
    return { status: 200, answer: { id: `sent-${this.#messageCount}`, timestamp: new Date().toISOString() } };
  }
}

async function readJson(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>;
  } catch {
    return {};
  }
}
