import type { Socket } from "node:net";
import { type RawData, WebSocket } from "ws";
import type { Logger } from "../../log/logger.ts";
import { actionDisconnected } from "./action-error.ts";
import { frameSample, MAX_FRAME_BYTES, parseFrame } from "./frame.ts";
import { type FrameWriter, WsActionCaller } from "./ws-action-caller.ts";

/** A peer that does not answer a ping within this interval is considered gone (half-open sockets). */
const KEEPALIVE_INTERVAL_MS = 30_000;

/** After asking to close, wait this long for the peer's close frame before cutting the socket. */
const CLOSE_GRACE_MS = 2_000;

export interface OneBotSocketHandlers {
  /** A frame with `post_type`. */
  onEvent(event: Record<string, unknown>): void;
  onClose(code: number, reason: string): void;
}

/**
 * One OneBot WebSocket (either direction): splits incoming frames into events and action
 * answers, calls actions, and fails pending actions when the socket goes away.
 */
export class OneBotSocket {
  readonly #ws: WebSocket;
  readonly #logger: Logger;
  readonly #handlers: OneBotSocketHandlers;
  readonly #caller: WsActionCaller;
  readonly #closed: Promise<void>;
  #retired = false;
  #awaitingPong = false;
  #keepalive: NodeJS.Timeout | undefined;

  constructor(ws: WebSocket, logger: Logger, handlers: OneBotSocketHandlers) {
    this.#ws = ws;
    this.#logger = logger;
    this.#handlers = handlers;
    this.#caller = new WsActionCaller(coalescingWriter(ws));
    this.#closed = new Promise((resolve) => ws.once("close", () => resolve()));
    ws.on("message", (data, isBinary) => this.#receive(data, isBinary));
    ws.on("pong", () => {
      this.#awaitingPong = false;
    });
    ws.on("error", (error: Error & { code?: string }) => {
      if (error.code === "WS_ERR_UNSUPPORTED_MESSAGE_LENGTH") {
        this.#logger.warn(
          { limit: MAX_FRAME_BYTES },
          "onebot frame larger than the limit refused, connection closed (1009)",
        );
      } else {
        this.#logger.warn({ err: error.message }, "onebot socket error");
      }
    });
    ws.once("close", (code, reason) => this.#onClose(code, reason.toString()));
    if (ws.readyState === WebSocket.OPEN) this.#startKeepalive();
    else ws.once("open", () => this.#startKeepalive());
  }

  get isOpen(): boolean {
    return !this.#retired && this.#ws.readyState === WebSocket.OPEN;
  }

  /** Resolves once the underlying socket has closed. */
  get closed(): Promise<void> {
    return this.#closed;
  }

  call(action: string, params: Record<string, unknown>, timeoutMs: number): Promise<unknown> {
    if (!this.isOpen) return Promise.reject(actionDisconnected(action, "the connection is not open", true));
    return this.#caller.call(action, params, timeoutMs);
  }

  /** Stops using this socket now (pending actions fail at once) and closes it with a reason. */
  close(code: number, reason: string): void {
    if (this.#retired) return;
    this.#retired = true;
    this.#caller.failAll(`connection closed: ${reason}`);
    if (this.#ws.readyState === WebSocket.CLOSED) return;
    this.#ws.close(code, reason);
    const cutoff = setTimeout(() => this.#ws.terminate(), CLOSE_GRACE_MS);
    cutoff.unref();
    void this.#closed.then(() => clearTimeout(cutoff));
  }

  #receive(data: RawData, isBinary: boolean): void {
    // Larger frames never arrive here: `maxPayload` refuses them at the header.
    const text = rawDataBytes(data).toString("utf8");
    const parsed = parseFrame(text);
    if (!parsed.ok) {
      this.#logger.warn(
        { problem: parsed.problem, binary: isBinary, sample: parsed.sample },
        "onebot frame ignored",
      );
      return;
    }
    const frame = parsed.frame;
    if ("post_type" in frame) {
      this.#handlers.onEvent(frame);
      return;
    }
    if (!this.#caller.settle(frame)) {
      // Late answers to timed-out actions land here too.
      this.#logger.debug({ sample: frameSample(text) }, "onebot frame matched no pending action");
    }
  }

  #startKeepalive(): void {
    this.#keepalive = setInterval(() => {
      if (this.#awaitingPong) {
        this.#logger.warn("onebot peer did not answer a ping, dropping the connection");
        this.#ws.terminate();
        return;
      }
      this.#awaitingPong = true;
      this.#ws.ping();
    }, KEEPALIVE_INTERVAL_MS);
    this.#keepalive.unref();
  }

  #onClose(code: number, reason: string): void {
    clearInterval(this.#keepalive);
    this.#retired = true;
    this.#caller.failAll(`connection closed (code ${code}${reason ? `, ${reason}` : ""})`);
    this.#handlers.onClose(code, reason);
  }
}

/**
 * Writes frames so that those sent in one event-loop turn leave in one write: the TCP socket is
 * corked at the turn's first frame and uncorked once its callbacks and promise jobs are done.
 * Under load the answers to a whole read of events go out in one system call instead of one
 * each; a lone frame leaves as soon as before, at the end of the turn that sent it.
 */
function coalescingWriter(ws: WebSocket): FrameWriter {
  let corked: Socket | undefined;
  const uncork = () => {
    corked?.uncork();
    corked = undefined;
  };
  return (text, onError) => {
    if (!corked) {
      // ws keeps its TCP socket private; without one (not connected yet) frames go one by one.
      corked = (ws as unknown as { _socket?: Socket | null })._socket ?? undefined;
      corked?.cork();
      if (corked) process.nextTick(uncork);
    }
    ws.send(text, (error) => {
      if (error) onError(error);
    });
  };
}

function rawDataBytes(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}
