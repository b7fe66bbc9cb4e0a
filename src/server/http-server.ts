import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import Fastify, { type FastifyInstance } from "fastify";
import type { Logger } from "../log/logger.ts";
import { AccessPolicy } from "./access-policy.ts";
import { namesApiPath } from "./api-path.ts";
import type { HealthReport } from "./health-report.ts";
import { lazyRouteValidatorCompiler } from "./lazy-validation.ts";
import type { HttpRoutes, RawPostHandler, UpgradeHandler } from "./routes.ts";
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
  logger: Logger;
}

declare module "fastify" {
  interface FastifyContextConfig {
    /** Served without the API's credentials. Every route without it is guarded. */
    public?: boolean;
  }
}

const DEFAULT_BODY_LIMIT = 16 * 1024 * 1024;

/**
 * The bot's one HTTP server: `/healthz`, the console's files, every other route behind the
 * access policy (deny by default), and paths that other modules claim at run time (OneBot
 * reverse WS upgrades, HTTP POST events) with their own credentials. Run-time paths sit in
 * front of Fastify because Fastify's router cannot remove routes once started; they match
 * the raw path exactly, so no other spelling reaches them.
 */
export class HttpServer implements HttpRoutes {
  readonly app: FastifyInstance;
  private readonly upgradeHandlers = new Map<string, UpgradeHandler>();
  private readonly postHandlers = new Map<string, RawPostHandler>();
  private readonly bodyLimit: number;
  /** `METHOD /url` of every Fastify route, logged once listening. */
  private readonly routes: string[] = [];
  private server: Server | undefined;

  constructor(
    private readonly options: HttpServerOptions,
    health: () => HealthReport,
  ) {
    this.bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
    this.app = Fastify({
      logger: false,
      bodyLimit: this.bodyLimit,
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
    // Decided on the route the router matched, not on how the client spelled the path. An
    // unmatched request is the console's (files, the app's own routes) unless its path
    // reads as /api in any spelling; the not-found handler then answers 404.
    this.app.addHook("onRequest", async (request, reply) => {
      const guarded = request.is404 ? namesApiPath(request.url) : !request.routeOptions.config.public;
      const refusal = access.checkHost(request.raw) ?? (guarded ? access.checkApi(request.raw) : undefined);
      if (refusal) await reply.code(refusal.status).send({ error: refusal.error, message: refusal.message });
    });
    this.app.get("/healthz", { config: { public: true } }, async () => health());
    if (options.staticDir) serveStaticSite(this.app, options.staticDir);
  }

  onUpgrade(path: string, handler: UpgradeHandler): () => void {
    return claim(this.upgradeHandlers, path, handler);
  }

  onPost(path: string, handler: RawPostHandler): () => void {
    return claim(this.postHandlers, path, handler);
  }

  async listen(): Promise<AddressInfo> {
    await this.app.listen({ host: this.options.host, port: this.options.port });
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
    const handler = this.upgradeHandlers.get(pathOf(request));
    if (!handler) {
      socket.end("HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
      return;
    }
    handler(request, socket, head);
  }

  private handleRawPost(request: IncomingMessage, response: ServerResponse): boolean {
    if (request.method !== "POST") return false;
    const handler = this.postHandlers.get(pathOf(request));
    if (!handler) return false;
    readBody(request, this.bodyLimit).then(
      (body) => handler(request, body, response),
      () => {
        response.writeHead(413).end();
        request.destroy();
      },
    );
    return true;
  }
}

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

function readBody(request: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        reject(new Error("body too large"));
        return;
      }
      chunks.push(chunk);
    });
    request.on("end", () => resolve(Buffer.concat(chunks)));
    request.on("error", reject);
  });
}
