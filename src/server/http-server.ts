import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { Duplex } from "node:stream";
import Fastify, { type FastifyInstance } from "fastify";
import type { Logger } from "../log/logger.ts";
import { namesApiPath } from "./api-path.ts";
import { hasBearerToken } from "./auth.ts";
import { type HealthReport, withoutAccountIds } from "./health-report.ts";
import { lazyRouteValidatorCompiler } from "./lazy-validation.ts";
import { AccessPolicy } from "./request-access.ts";
import type { HttpRoutes, RawPostHandler, RawPostOptions, UpgradeHandler } from "./routes.ts";
import { serveStaticSite } from "./static-site.ts";

export interface HttpServerOptions {
  host: string;
  port: number;
  /** Bearer token required for `/api/*`; empty means no token (loopback only). */
  token: string;
  /** More host names the server answers to without a token (server.allowedHosts). */
  allowedHosts: readonly string[];
  /** Largest request body accepted anywhere, in bytes. */
  bodyLimit?: number;
  /** The built console (web/dist), served for every other GET outside `/api/`. */
  staticDir?: string;
  /**
   * Whether a connection comes from an untrusted plugin or MCP server process
   * (sandboxed-peers.ts). Asked of every request that would be let in without a credential —
   * the API and OneBot upgrades with no `token`, OneBot HTTP events with no `secret` — and
   * refused for them: such a process shares the machine's loopback with the console.
   */
  sandboxedPeer?: (socket: Socket) => Promise<boolean>;
  logger: Logger;
}

const FROM_SANDBOX = {
  status: 403,
  error: "forbidden",
  message: "requests from untrusted plugin and MCP server processes are refused",
} as const;

declare module "fastify" {
  interface FastifyContextConfig {
    /** Served without the API's credentials. Every route without it is guarded. */
    public?: boolean;
  }
}

const DEFAULT_BODY_LIMIT = 16 * 1024 * 1024;

interface PostRoute {
  handler: RawPostHandler;
  options: RawPostOptions;
}

/** Why a raw POST body was not read to its end. */
class BodyRefused extends Error {
  constructor(
    readonly status: 408 | 413,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The bot's one HTTP server: `/healthz`, the console's files, every other route behind the
 * access policy (deny by default), and paths that other modules claim at run time (OneBot
 * reverse WS upgrades, HTTP POST events) with their own credentials, or with the no-token Host
 * and Origin rules when they have none (RawPostOptions). Run-time paths sit in
 * front of Fastify because Fastify's router cannot remove routes once started; they match
 * the raw path exactly, so no other spelling reaches them.
 */
export class HttpServer implements HttpRoutes {
  readonly app: FastifyInstance;
  private readonly upgradeHandlers = new Map<string, UpgradeHandler>();
  /** Unknown upgrade paths already logged: a client retrying every second is one line, not a flood. */
  private readonly unknownUpgradePaths = new Set<string>();
  private readonly postRoutes = new Map<string, PostRoute>();
  private readonly access: AccessPolicy;
  /** `METHOD /url` of every Fastify route, logged once listening. */
  private readonly routes: string[] = [];
  private server: Server | undefined;

  constructor(
    private readonly options: HttpServerOptions,
    health: () => HealthReport,
  ) {
    this.app = Fastify({
      logger: false,
      bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
      serverFactory: (handler) => {
        const server = createServer((request, response) => {
          if (!this.handleRawPost(request, response)) handler(request, response);
        });
        server.on("upgrade", (request, socket, head) => this.handleUpgrade(request, socket, head));
        this.server = server;
        return server;
      },
    });
    this.app.setValidatorCompiler(lazyRouteValidatorCompiler());
    this.app.addHook("onRoute", (route) => {
      for (const method of [route.method].flat()) this.routes.push(`${method} ${route.url}`);
    });
    const access = new AccessPolicy(options, () => this.port());
    this.access = access;
    // Decided on the route the router matched, not on how the client spelled the path. An
    // unmatched request is the console's (files, the app's own routes) unless its path
    // reads as /api in any spelling; the not-found handler then answers 404.
    this.app.addHook("onRequest", async (request, reply) => {
      const guarded = request.is404 ? namesApiPath(request.url) : !request.routeOptions.config.public;
      const refusal =
        access.checkHost(request.raw) ??
        (guarded ? access.checkApi(request.raw) : undefined) ??
        (guarded && !options.token ? await this.fromSandbox(request.raw) : undefined);
      if (refusal) await reply.code(refusal.status).send({ error: refusal.error, message: refusal.message });
    });
    // Public, so without the API token it names no account: the QQ numbers are the bot's.
    this.app.get("/healthz", { config: { public: true } }, async (request) =>
      options.token && hasBearerToken(request.raw, options.token) ? health() : withoutAccountIds(health()),
    );
    if (options.staticDir) serveStaticSite(this.app, options.staticDir);
  }

  onUpgrade(path: string, handler: UpgradeHandler): () => void {
    return claim(this.upgradeHandlers, path, handler);
  }

  onPost(path: string, handler: RawPostHandler, options: RawPostOptions): () => void {
    return claim(this.postRoutes, path, { handler, options });
  }

  async listen(): Promise<AddressInfo> {
    const { host, port } = this.options;
    try {
      await this.app.listen({ host, port });
    } catch (error) {
      // The usual first-hour mistake (a second bot, another program on 6180): one line, no stack.
      const code = (error as { code?: string }).code;
      if (code === "EADDRINUSE")
        throw new Error(
          `port ${port} on ${host} is in use by another program: stop it, or set server.port to a free port`,
        );
      if (code === "EACCES")
        throw new Error(
          `port ${port} on ${host} may not be opened by this user: set server.port to 1024 or above`,
        );
      throw error;
    }
    this.options.logger.debug({ routes: this.routes }, "http routes");
    return this.server!.address() as AddressInfo;
  }

  /** Stops accepting connections and closes open ones. */
  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await this.app.close();
  }

  private port(): number {
    const address = this.server?.address();
    return typeof address === "object" && address ? address.port : this.options.port;
  }

  private handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    const path = pathOf(request);
    // `…/ws/` as NapCat's form leaves it when the URL is pasted with a slash: the same endpoint.
    const handler =
      this.upgradeHandlers.get(path) ?? this.upgradeHandlers.get(path.replace(/(?<=.)\/+$/, ""));
    if (!handler) {
      if (this.unknownUpgradePaths.size < UNKNOWN_PATHS_LOGGED && !this.unknownUpgradePaths.has(path)) {
        this.unknownUpgradePaths.add(path);
        this.options.logger.warn(
          { path, remote: request.socket.remoteAddress, served: [...this.upgradeHandlers.keys()] },
          "WebSocket connection to an unknown path refused (logged once per path)",
        );
      }
      socket.end("HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
      return;
    }
    // With a token the handler's own accessToken check decides; without one, no sandboxed process.
    if (this.options.token) {
      handler(request, socket, head);
      return;
    }
    this.fromSandbox(request).then((refusal) => {
      if (refusal) socket.end("HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
      else handler(request, socket, head);
    });
  }

  /** The refusal of a request from an untrusted process, with one warning naming what it asked for. */
  private async fromSandbox(request: IncomingMessage): Promise<typeof FROM_SANDBOX | undefined> {
    if (!(await this.options.sandboxedPeer?.(request.socket))) return undefined;
    this.options.logger.warn({ method: request.method, path: pathOf(request) }, FROM_SANDBOX.message);
    return FROM_SANDBOX;
  }

  /** Guards and reads a raw POST for its handler; each refusal is one log line. */
  private handleRawPost(request: IncomingMessage, response: ServerResponse): boolean {
    if (request.method !== "POST") return false;
    const path = pathOf(request);
    const route = this.postRoutes.get(path);
    if (!route) return false;
    const { handler, options } = route;
    const { logger } = this.options;
    const remote = request.socket.remoteAddress;
    const refusal = options.ownOriginOnly ? this.access.checkOwnOrigin(request) : undefined;
    if (refusal) {
      logger.warn({ path, remote, why: refusal.message }, "request refused");
      refuse(request, response, refusal.status, { error: refusal.error, message: refusal.message });
      return true;
    }
    const declared = Number(request.headers["content-length"]);
    if (declared > options.maxBodyBytes) {
      logger.warn({ path, remote, bytes: declared, limit: options.maxBodyBytes }, "request body too large");
      refuse(request, response, 413);
      return true;
    }
    // A post without a credential of its own (no `secret`) is refused to a sandboxed process.
    const sandboxed = options.ownOriginOnly ? this.fromSandbox(request) : Promise.resolve(undefined);
    Promise.all([readBody(request, options), sandboxed]).then(
      ([body, fromSandbox]) => {
        if (!fromSandbox) return handler(request, body, response);
        refuse(request, response, fromSandbox.status, {
          error: fromSandbox.error,
          message: fromSandbox.message,
        });
      },
      (error: Error) => {
        if (!(error instanceof BodyRefused)) return; // the client went away
        logger.warn({ path, remote, why: error.message }, "request body refused");
        refuse(request, response, error.status);
      },
    );
    return true;
  }
}

/** How many distinct unknown upgrade paths are logged; a scanner's are not worth more. */
const UNKNOWN_PATHS_LOGGED = 20;

function claim<T>(handlers: Map<string, T>, path: string, handler: T): () => void {
  if (handlers.has(path)) throw new Error(`path ${path} is already served by another component`);
  handlers.set(path, handler);
  return () => {
    if (handlers.get(path) === handler) handlers.delete(path);
  };
}

function pathOf(request: IncomingMessage): string {
  const url = request.url ?? "/";
  const query = url.indexOf("?");
  return query === -1 ? url : url.slice(0, query);
}

/** Reads the body, holding at most `maxBodyBytes` of it and for at most `bodyTimeoutMs`. */
function readBody(request: IncomingMessage, options: RawPostOptions): Promise<Buffer> {
  const { maxBodyBytes, bodyTimeoutMs } = options;
  return new Promise((resolve, reject) => {
    let chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      outcome();
      chunks = [];
    };
    const timer = setTimeout(
      () => settle(() => reject(new BodyRefused(408, `body not complete within ${bodyTimeoutMs} ms`))),
      bodyTimeoutMs,
    );
    request.on("data", (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      if (size > maxBodyBytes) {
        settle(() => reject(new BodyRefused(413, `body larger than ${maxBodyBytes} bytes`)));
        return;
      }
      chunks.push(chunk);
    });
    request.on("end", () => settle(() => resolve(Buffer.concat(chunks))));
    request.on("error", (error) => settle(() => reject(error)));
    request.on("close", () => settle(() => reject(new Error("connection closed before the body ended"))));
  });
}

/** Answers `status` and closes the connection: whatever is left of the body is never read. */
function refuse(request: IncomingMessage, response: ServerResponse, status: number, body?: object): void {
  const json = body === undefined ? undefined : JSON.stringify(body);
  response.writeHead(status, {
    connection: "close",
    ...(json === undefined ? {} : { "content-type": "application/json; charset=utf-8" }),
  });
  response.end(json, () => request.destroy());
}
