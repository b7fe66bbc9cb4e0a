import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { type WebSocket, WebSocketServer } from "ws";
import type { Logger } from "../../log/logger.ts";
import { hasOneBotAccessToken } from "../../server/auth.ts";
import type { HttpRoutes } from "../../server/routes.ts";
import { actionDisconnected } from "./action-error.ts";
import { MAX_FRAME_BYTES } from "./frame.ts";
import { OneBotSocket } from "./onebot-socket.ts";
import type { ActionCall, OneBotTransport, TransportSink } from "./transport.ts";

/** `X-Client-Role`: Universal carries both actions and events; API and Event split them. */
export type ClientRole = "universal" | "api" | "event";

export interface ReverseWsOptions {
  path: string;
  accessToken: string | undefined;
  routes: HttpRoutes;
  sink: TransportSink;
  logger: Logger;
}

interface ReverseConnection {
  socket: OneBotSocket;
  role: ClientRole;
  /** Increasing per accepted connection: the newest action-capable socket gets the actions. */
  sequence: number;
}

/**
 * Open sockets one endpoint accepts: enough for several accounts, each with split API and
 * Event sockets, while bounding what a flood of handshakes can hold (each socket may buffer
 * up to MAX_FRAME_BYTES). A handshake completes synchronously, so none are left pending.
 */
export const MAX_CONNECTIONS_PER_ENDPOINT = 16;

/**
 * Serves the reverse WebSocket OneBot implementations dial into. Several accounts may be
 * connected at once; a newer connection for the same self id and role replaces the older one,
 * because the older one is usually a stale socket the implementation has already given up on
 * (NapCat reconnecting over a half-dead socket). With an access token only a handshake that
 * presents it gets that far, so only the token holder can replace a connection; without one
 * the endpoint must stay on loopback (the config check refuses anything else).
 */
export class ReverseWsTransport implements OneBotTransport {
  readonly #options: ReverseWsOptions;
  readonly #server = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });
  /** self id → role → connection */
  readonly #accounts = new Map<string, Map<ClientRole, ReverseConnection>>();
  #sequence = 0;
  #removeRoute: (() => void) | undefined;

  constructor(options: ReverseWsOptions) {
    this.#options = options;
  }

  async start(): Promise<void> {
    this.#removeRoute = this.#options.routes.onUpgrade(this.#options.path, (request, socket, head) =>
      this.#upgrade(request, socket, head),
    );
  }

  async stop(): Promise<void> {
    this.#removeRoute?.();
    this.#removeRoute = undefined;
    const sockets = [...this.#accounts.values()].flatMap((roles) => [...roles.values()].map((c) => c.socket));
    for (const socket of sockets) socket.close(1001, "server stopping");
    await Promise.all(sockets.map((socket) => socket.closed));
    this.#server.close();
  }

  async callAction({ selfId, action, params, timeoutMs }: ActionCall): Promise<unknown> {
    const socket = this.#actionSocket(selfId);
    if (!socket) throw actionDisconnected(action, `no open API connection for self id ${selfId}`, true);
    return socket.call(action, params, timeoutMs);
  }

  #actionSocket(selfId: string): OneBotSocket | undefined {
    const candidates = [...(this.#accounts.get(selfId)?.values() ?? [])]
      .filter((connection) => connection.role !== "event" && connection.socket.isOpen)
      .sort((a, b) => b.sequence - a.sequence);
    return candidates[0]?.socket;
  }

  #upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    const { accessToken, logger } = this.#options;
    const remote = request.socket.remoteAddress;
    if (accessToken && !hasOneBotAccessToken(request, accessToken)) {
      logger.warn({ remote }, "onebot reverse ws rejected: missing or wrong access token");
      rejectUpgrade(socket, 401, "Unauthorized");
      return;
    }
    const selfId = headerValue(request, "x-self-id");
    const role = parseClientRole(headerValue(request, "x-client-role"));
    if (!selfId || !role) {
      logger.warn(
        { remote, selfId, role: headerValue(request, "x-client-role") },
        "onebot reverse ws rejected: missing X-Self-ID or unknown X-Client-Role",
      );
      rejectUpgrade(socket, 400, "Bad Request");
      return;
    }
    const replacesOlder = this.#accounts.get(selfId)?.has(role) ?? false;
    if (!replacesOlder && this.#connectionCount() >= MAX_CONNECTIONS_PER_ENDPOINT) {
      logger.warn(
        { remote, selfId, role, limit: MAX_CONNECTIONS_PER_ENDPOINT },
        "onebot reverse ws rejected: too many connections",
      );
      rejectUpgrade(socket, 503, "Service Unavailable");
      return;
    }
    this.#server.handleUpgrade(request, socket, head, (ws) => this.#accept(ws, selfId, role, remote));
  }

  #connectionCount(): number {
    let count = 0;
    for (const roles of this.#accounts.values()) count += roles.size;
    return count;
  }

  #accept(ws: WebSocket, selfId: string, role: ClientRole, remote: string | undefined): void {
    const roles = this.#accounts.get(selfId) ?? new Map<ClientRole, ReverseConnection>();
    this.#accounts.set(selfId, roles);
    const previous = roles.get(role);
    const socket: OneBotSocket = new OneBotSocket(ws, this.#options.logger.child({ selfId, role }), {
      onEvent: (event) => this.#options.sink.event(event, selfId),
      onClose: (code, reason) => this.#closed(selfId, role, socket, code, reason),
    });
    roles.set(role, { socket, role, sequence: ++this.#sequence });
    this.#options.sink.connection({
      selfId,
      change: "opened",
      accountConnected: true,
      details: { mode: "reverse-ws", role, remote, replacesOlder: previous !== undefined },
    });
    previous?.socket.close(1000, "replaced by a newer connection");
  }

  #closed(selfId: string, role: ClientRole, socket: OneBotSocket, code: number, reason: string): void {
    const roles = this.#accounts.get(selfId);
    if (roles?.get(role)?.socket === socket) roles.delete(role);
    if (roles?.size === 0) this.#accounts.delete(selfId);
    this.#options.sink.connection({
      selfId,
      change: "closed",
      accountConnected: (roles?.size ?? 0) > 0,
      details: { mode: "reverse-ws", role, code, reason },
    });
  }
}

export function parseClientRole(header: string | undefined): ClientRole | undefined {
  // Lagrange sends "Api"; the spec says "API". Absent means Universal.
  const role = (header ?? "universal").trim().toLowerCase();
  return role === "universal" || role === "api" || role === "event" ? role : undefined;
}

function headerValue(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  return text ? text : undefined;
}

function rejectUpgrade(socket: Duplex, status: number, statusText: string): void {
  const body = `${status} ${statusText}\n`;
  socket.once("finish", () => socket.destroy());
  socket.end(
    `HTTP/1.1 ${status} ${statusText}\r\nConnection: close\r\nContent-Type: text/plain\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}
