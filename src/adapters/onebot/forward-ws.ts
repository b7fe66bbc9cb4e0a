import { WebSocket } from "ws";
import { type Logger, scrubText } from "../../log/logger.ts";
import { idToString } from "../../message/onebot-values.ts";
import { isRecord } from "../../util/values.ts";
import { actionDisconnected } from "./action-error.ts";
import type { ReconnectConfig } from "./config.ts";
import { MAX_FRAME_BYTES } from "./frame.ts";
import { OneBotSocket } from "./onebot-socket.ts";
import { ReconnectBackoff } from "./reconnect-backoff.ts";
import type { ActionCall, OneBotTransport, TransportSink } from "./transport.ts";

export interface ForwardWsOptions {
  url: string;
  accessToken: string | undefined;
  actionTimeoutMs: number;
  reconnect: ReconnectConfig;
  sink: TransportSink;
  logger: Logger;
}

const HANDSHAKE_TIMEOUT_MS = 10_000;

/**
 * Dials the implementation's WebSocket server and keeps exactly one connection to it,
 * reconnecting with backoff. The account is known once an event carries `self_id` or
 * `get_login_info` answers, whichever comes first.
 */
export class ForwardWsTransport implements OneBotTransport {
  readonly #options: ForwardWsOptions;
  readonly #backoff: ReconnectBackoff;
  /** The url as it may be logged (an `access_token` query parameter masked). */
  readonly #loggableUrl: string;
  #socket: OneBotSocket | undefined;
  /** Self id of the current socket; undefined until identified. */
  #selfId: string | undefined;
  #reconnectTimer: NodeJS.Timeout | undefined;
  #running = false;

  constructor(options: ForwardWsOptions) {
    this.#options = options;
    this.#backoff = new ReconnectBackoff(options.reconnect);
    this.#loggableUrl = scrubText(options.url);
  }

  async start(): Promise<void> {
    this.#running = true;
    this.#connect();
  }

  async stop(): Promise<void> {
    this.#running = false;
    clearTimeout(this.#reconnectTimer);
    this.#reconnectTimer = undefined;
    const socket = this.#socket;
    socket?.close(1000, "adapter stopping");
    await socket?.closed;
  }

  async callAction({ selfId, action, params, timeoutMs }: ActionCall): Promise<unknown> {
    if (!this.#socket?.isOpen || this.#selfId !== selfId) {
      throw actionDisconnected(action, `no open connection for self id ${selfId}`, true);
    }
    return this.#socket.call(action, params, timeoutMs);
  }

  #connect(): void {
    // One socket at a time: a pending timer or a live socket means a connection is on its way.
    if (!this.#running || this.#socket || this.#reconnectTimer) return;
    const { url, accessToken, logger } = this.#options;
    const ws = new WebSocket(url, {
      headers: accessToken ? { Authorization: `Bearer ${accessToken}` } : {},
      maxPayload: MAX_FRAME_BYTES,
      handshakeTimeout: HANDSHAKE_TIMEOUT_MS,
    });
    const socket: OneBotSocket = new OneBotSocket(ws, logger.child({ mode: "forward-ws" }), {
      onEvent: (event) => this.#onEvent(socket, event),
      onClose: (code, reason) => this.#onClose(socket, code, reason),
    });
    this.#socket = socket;
    this.#selfId = undefined;
    ws.once("open", () => {
      this.#backoff.reset();
      logger.debug({ url: this.#loggableUrl }, "onebot forward ws open, identifying the account");
      void this.#askLoginInfo(socket);
    });
  }

  async #askLoginInfo(socket: OneBotSocket): Promise<void> {
    try {
      const info = await socket.call("get_login_info", {}, this.#options.actionTimeoutMs);
      const selfId = isRecord(info) ? idToString(info.user_id) : undefined;
      if (selfId) this.#identify(socket, selfId);
    } catch (error) {
      this.#options.logger.warn({ err: (error as Error).message }, "onebot get_login_info failed");
    }
  }

  #onEvent(socket: OneBotSocket, event: Record<string, unknown>): void {
    if (socket !== this.#socket) return;
    const selfId = idToString(event.self_id);
    if (selfId) this.#identify(socket, selfId);
    this.#options.sink.event(event, this.#selfId);
  }

  #identify(socket: OneBotSocket, selfId: string): void {
    if (socket !== this.#socket || this.#selfId !== undefined) return;
    this.#selfId = selfId;
    this.#options.sink.connection({
      selfId,
      change: "opened",
      accountConnected: true,
      details: { mode: "forward-ws", url: this.#loggableUrl },
    });
  }

  #onClose(socket: OneBotSocket, code: number, reason: string): void {
    if (socket !== this.#socket) return;
    const selfId = this.#selfId;
    this.#socket = undefined;
    this.#selfId = undefined;
    if (selfId) {
      this.#options.sink.connection({
        selfId,
        change: "closed",
        accountConnected: false,
        details: { mode: "forward-ws", code, reason },
      });
    }
    this.#scheduleReconnect();
  }

  #scheduleReconnect(): void {
    if (!this.#running || this.#reconnectTimer) return;
    const delayMs = this.#backoff.nextDelayMs();
    this.#options.logger.info({ url: this.#loggableUrl, delayMs }, "onebot forward ws reconnecting");
    this.#reconnectTimer = setTimeout(() => {
      this.#reconnectTimer = undefined;
      this.#connect();
    }, delayMs);
  }
}
