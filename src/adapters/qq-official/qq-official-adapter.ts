import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "../../log/logger.ts";
import type { Segment } from "../../message/segment.ts";
import type { HttpRoutes } from "../../server/routes.ts";
import type { AccountStatus, AdapterEvents, ChatAdapter, SendTarget } from "../types.ts";
import { AccessTokenSource } from "./access-token.ts";
import type { QqOfficialAdapterConfig } from "./config.ts";
import { decodeDispatch, QQ_OFFICIAL_PLATFORM } from "./event-decoder.ts";
import { OpenApi, OpenApiRefusal } from "./openapi.ts";
import { composeMessage, type OutgoingMedia } from "./outbound.ts";
import { PassiveReplies } from "./passive-replies.ts";
import { eventSignatureMatches, keysFromSecret, signHex, type WebhookKeys } from "./webhook-signing.ts";
import { isCallbackValidation, isUploadAnswer, isWebhookPayload, validationProblem } from "./wire.ts";

export interface QqOfficialAdapterOptions {
  config: QqOfficialAdapterConfig;
  routes: HttpRoutes;
  events: AdapterEvents;
  /** Expected to carry the adapter id already (`logger.child({ adapter: id })`). */
  logger: Logger;
  now?: () => number;
}

/** Events are a few KB: pictures and voice arrive as URLs. */
const MAX_EVENT_BYTES = 1024 * 1024;
const EVENT_BODY_TIMEOUT_MS = 5_000;
/**
 * How far an event's signed timestamp (X-Signature-Timestamp) may be from our clock: an older
 * signed event is a replay, refused however many events came since.
 */
const REPLAY_WINDOW_MS = 10 * 60_000;
/**
 * Event ids remembered, each until its timestamp leaves the replay window, to drop the
 * platform's re-deliveries and replays within it. The cap only bounds memory: it is far
 * above what a bot receives in a window.
 */
const MAX_SEEN_EVENT_IDS = 200_000;
/** `msg_type` of the send endpoints: 0 text, 2 markdown, 7 media. */
const TEXT = 0;
const MARKDOWN = 2;
const MEDIA = 7;

/**
 * A bot on QQ's official bot platform: events arrive as signed webhook POSTs on server.port,
 * messages leave through the OpenAPI with an access token. The bot's AppID is its account id.
 */
export class QqOfficialAdapter implements ChatAdapter {
  readonly id: string;
  readonly platform = QQ_OFFICIAL_PLATFORM;
  readonly #config: QqOfficialAdapterConfig;
  readonly #routes: HttpRoutes;
  readonly #events: AdapterEvents;
  readonly #logger: Logger;
  readonly #now: () => number;
  readonly #keys: WebhookKeys;
  readonly #tokens: AccessTokenSource;
  readonly #api: OpenApi;
  readonly #replies = new PassiveReplies();
  /** Event id → when it leaves the replay window (ms), oldest first. */
  readonly #seenEvents = new Map<string, number>();
  #connected = false;
  #removeRoute: (() => void) | undefined;

  constructor(options: QqOfficialAdapterOptions) {
    const { config, logger } = options;
    this.id = config.id;
    this.#config = config;
    this.#routes = options.routes;
    this.#events = options.events;
    this.#logger = logger;
    this.#now = options.now ?? Date.now;
    this.#keys = keysFromSecret(config.secret);
    this.#tokens = new AccessTokenSource({
      appId: config.appId,
      secret: config.secret,
      tokenUrl: config.tokenUrl,
      timeoutMs: config.actionTimeoutMs,
      changed: (held) => this.#connectionChanged(held),
      logger,
      now: this.#now,
    });
    this.#api = new OpenApi({
      apiBase: config.apiBase,
      appId: config.appId,
      tokens: this.#tokens,
      timeoutMs: config.actionTimeoutMs,
      rateLimitChanged: () => this.#connectionChanged(this.#connected),
      logger,
      now: this.#now,
    });
  }

  async start(): Promise<void> {
    this.#removeRoute = this.#routes.onPost(
      this.#config.path,
      (request, body, response) => this.#receive(request, body, response),
      // The platform posts from the internet: its Ed25519 signature, not the origin, is the check.
      { maxBodyBytes: MAX_EVENT_BYTES, bodyTimeoutMs: EVENT_BODY_TIMEOUT_MS, ownOriginOnly: false },
    );
    this.#tokens.start();
  }

  async stop(): Promise<void> {
    this.#tokens.stop();
    this.#removeRoute?.();
    this.#removeRoute = undefined;
  }

  accounts(): AccountStatus[] {
    const until = this.#api.limitedUntil();
    return [
      {
        selfId: this.#config.appId,
        connected: this.#connected,
        ...(until === undefined ? {} : { rateLimitedUntil: until }),
      },
    ];
  }

  async send(target: SendTarget, segments: Segment[]): Promise<{ messageId: string }> {
    if (target.selfId !== this.#config.appId) {
      throw new OpenApiRefusal(
        `adapter ${this.id} runs AppID ${this.#config.appId}, not ${target.selfId}`,
        0,
      );
    }
    const outgoing = await composeMessage(segments);
    if (outgoing.dropped.length > 0) {
      this.#logger.info(
        { dropped: outgoing.dropped },
        "qq-official send: left out what the platform cannot carry",
      );
    }
    if (outgoing.text === "" && outgoing.media.length === 0) {
      throw new OpenApiRefusal("nothing the platform can carry is left to send", 0);
    }
    const chat = chatPath(target);
    let messageId = "";
    if (outgoing.media.length === 0) {
      messageId = await this.#post(chat, this.#textBody(outgoing.text), outgoing.quotedMsgId);
    }
    for (const [index, media] of outgoing.media.entries()) {
      const fileInfo = await this.#upload(chat, media);
      const body: Record<string, unknown> = { msg_type: MEDIA, media: { file_info: fileInfo } };
      // The text rides along with the first picture or voice.
      if (index === 0 && outgoing.text !== "") body.content = outgoing.text;
      messageId = await this.#post(chat, body, outgoing.quotedMsgId);
    }
    return { messageId };
  }

  /** Raw OpenAPI calls for plugins: `action` is a POST path under `/v2/`, `params` its body. */
  async callAction(selfId: string, action: string, params: Record<string, unknown>): Promise<unknown> {
    if (selfId !== this.#config.appId || !action.startsWith("/v2/")) {
      throw new OpenApiRefusal(`qq-official adapter ${this.id} has no action "${action}" for ${selfId}`, 0);
    }
    return this.#api.post(action, params);
  }

  #textBody(text: string): Record<string, unknown> {
    return this.#config.markdown
      ? { msg_type: MARKDOWN, markdown: { content: text } }
      : { msg_type: TEXT, content: text };
  }

  async #post(chat: string, body: Record<string, unknown>, quotedMsgId: string | undefined): Promise<string> {
    const passive = this.#replies.take(chat, this.#now(), quotedMsgId);
    const answer = await this.#api.post(`${chat}/messages`, { ...body, ...passive });
    return typeof answer.id === "string" ? answer.id : "";
  }

  async #upload(chat: string, media: OutgoingMedia): Promise<string> {
    const source = media.url === undefined ? { file_data: media.fileData } : { url: media.url };
    const answer = await this.#api.post(`${chat}/files`, {
      file_type: media.fileType,
      ...source,
      srv_send_msg: false,
    });
    if (!isUploadAnswer(answer)) throw new OpenApiRefusal(`upload answered without file_info`, 200);
    return answer.file_info;
  }

  #receive(request: IncomingMessage, body: Buffer, response: ServerResponse): void {
    const { headers } = request;
    // Checked before anything else is read: unsigned, an op 13 would make us sign any text.
    if (
      !eventSignatureMatches(
        this.#keys,
        headers["x-signature-timestamp"],
        headers["x-signature-ed25519"],
        body,
      )
    ) {
      this.#logger.warn(
        { remote: request.socket.remoteAddress },
        "qq-official webhook refused: bad or missing X-Signature-Ed25519",
      );
      response.writeHead(401).end();
      return;
    }
    const signedAt = Number(headers["x-signature-timestamp"]) * 1000;
    if (!(Math.abs(this.#now() - signedAt) <= REPLAY_WINDOW_MS)) {
      this.#logger.warn(
        {
          remote: request.socket.remoteAddress,
          signedAt: Number.isFinite(signedAt) ? new Date(signedAt).toISOString() : null,
        },
        "qq-official webhook refused: signed outside the 10-minute replay window",
      );
      response.writeHead(401).end();
      return;
    }
    let payload: unknown;
    try {
      payload = JSON.parse(body.toString("utf8"));
    } catch {
      payload = undefined;
    }
    if (!isWebhookPayload(payload)) {
      this.#logger.warn(
        { problem: validationProblem(isWebhookPayload) },
        "qq-official webhook ignored: not a payload",
      );
      response.writeHead(400).end();
      return;
    }
    if (payload.op === 13) {
      this.#answerValidation(payload.d, response);
      return;
    }
    if (payload.op !== 0) {
      this.#logger.warn({ op: payload.op }, "qq-official webhook ignored: unknown op");
      response.writeHead(400).end();
      return;
    }
    response.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify({ op: 12, d: 0 }));
    if (payload.id !== undefined && this.#alreadySeen(payload.id, signedAt)) return;
    this.#dispatch(payload.t, payload.d);
  }

  /** Op 13: the platform checks the callback address; we sign event_ts + plain_token. */
  #answerValidation(data: unknown, response: ServerResponse): void {
    if (!isCallbackValidation(data)) {
      this.#logger.warn(
        { problem: validationProblem(isCallbackValidation) },
        "qq-official callback validation ignored",
      );
      response.writeHead(400).end();
      return;
    }
    const signature = signHex(this.#keys, `${data.event_ts}${data.plain_token}`);
    this.#logger.info("qq-official callback address validated");
    response
      .writeHead(200, { "Content-Type": "application/json" })
      .end(JSON.stringify({ plain_token: data.plain_token, signature }));
  }

  #dispatch(eventType: string | undefined, data: unknown): void {
    const decoded = decodeDispatch(eventType, data, {
      adapterId: this.id,
      appId: this.#config.appId,
      now: this.#now,
    });
    if (decoded.kind === "skipped") {
      this.#logger.debug({ why: decoded.why }, "qq-official event skipped");
      return;
    }
    if (decoded.kind === "invalid") {
      this.#logger.warn({ problem: decoded.problem }, "qq-official event ignored");
      return;
    }
    const { message } = decoded;
    const chat = chatPath({ chatType: message.chatType, peerId: message.groupId ?? message.userId });
    this.#replies.remember(chat, message.messageId, this.#now());
    this.#events.message(message);
  }

  #alreadySeen(eventId: string, signedAt: number): boolean {
    const now = this.#now();
    for (const [id, until] of this.#seenEvents) {
      if (until >= now && this.#seenEvents.size < MAX_SEEN_EVENT_IDS) break;
      this.#seenEvents.delete(id);
    }
    if (this.#seenEvents.has(eventId)) return true;
    this.#seenEvents.set(eventId, signedAt + REPLAY_WINDOW_MS);
    return false;
  }

  #connectionChanged(held: boolean): void {
    this.#connected = held;
    const [status] = this.accounts();
    try {
      this.#events.connection(status!);
    } catch (error) {
      this.#logger.error({ err: error }, "qq-official connection listener failed");
    }
  }
}

/** The OpenAPI path of a chat: `/v2/groups/{group_openid}` or `/v2/users/{openid}`. */
function chatPath(target: Pick<SendTarget, "chatType" | "peerId">): string {
  const peer = encodeURIComponent(target.peerId);
  return target.chatType === "group" ? `/v2/groups/${peer}` : `/v2/users/${peer}`;
}
