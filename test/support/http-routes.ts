import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { HttpRoutes, RawPostHandler, UpgradeHandler } from "../../src/server/routes.ts";

const MAX_BODY_BYTES = 16 * 1024 * 1024;

/** A plain node:http server on 127.0.0.1:0 offering HttpRoutes, standing in for the real server module. */
export interface TestHttpServer {
  routes: HttpRoutes;
  /** `http://127.0.0.1:<port>` */
  baseUrl: string;
  /** `ws://127.0.0.1:<port><path>` */
  wsUrl(path: string): string;
  close(): Promise<void>;
}

export async function startTestHttpServer(): Promise<TestHttpServer> {
  const upgrades = new Map<string, UpgradeHandler>();
  const posts = new Map<string, RawPostHandler>();
  const sockets = new Set<Socket>();
  const server = createServer((request, response) => {
    const handler = request.method === "POST" ? posts.get(pathOf(request)) : undefined;
    if (!handler) {
      response.writeHead(404).end();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    request.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        response.writeHead(413).end();
        request.destroy();
        return;
      }
      chunks.push(chunk);
    });
    request.on("end", () => {
      if (size <= MAX_BODY_BYTES) handler(request, Buffer.concat(chunks), response);
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  server.on("upgrade", (request, socket, head) => {
    const handler = upgrades.get(pathOf(request));
    if (handler) handler(request, socket, head);
    else socket.end("HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    routes: {
      onUpgrade: (path, handler) => register(upgrades, path, handler),
      onPost: (path, handler) => register(posts, path, handler),
    },
    baseUrl: `http://127.0.0.1:${port}`,
    wsUrl: (path) => `ws://127.0.0.1:${port}${path}`,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function register<T>(table: Map<string, T>, path: string, handler: T): () => void {
  if (table.has(path)) throw new Error(`a handler for ${path} is already registered`);
  table.set(path, handler);
  return () => {
    if (table.get(path) === handler) table.delete(path);
  };
}

function pathOf(request: IncomingMessage): string {
  return new URL(request.url ?? "/", "http://localhost").pathname;
}
