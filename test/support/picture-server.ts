import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/**
 * A real HTTP server on 127.0.0.1 standing in for QQ's picture servers: each path answers with
 * picture bytes (or anything else), a redirect, a slow or endless body.
 *
 *   const pictures = await startPictureServer();
 *   const url = pictures.serve("/cat.png", { body: PNG_1X1 });
 */
export type PictureRoute =
  | {
      body: Buffer;
      status?: number;
      contentType?: string;
      /** Send no Content-Length and write the body in 64 KB pieces. */
      streamed?: boolean;
      /** Wait this long before answering. */
      delayMs?: number;
    }
  | { redirectTo: string; status?: number };

export interface PictureServer {
  /** `http://127.0.0.1:<port>` */
  baseUrl: string;
  port: number;
  /** Answers `path` with `route` from now on; returns the path's URL. */
  serve(path: string, route: PictureRoute): string;
  /** Paths requested so far, oldest first. */
  requests: string[];
  close(): Promise<void>;
}

export async function startPictureServer(): Promise<PictureServer> {
  const routes = new Map<string, PictureRoute>();
  const requests: string[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const server = createServer((request, response) => {
    const path = request.url ?? "/";
    requests.push(path);
    const route = routes.get(path);
    if (!route) {
      response.writeHead(404, { "Content-Type": "text/plain" }).end("not found");
      return;
    }
    const delayMs = "body" in route ? (route.delayMs ?? 0) : 0;
    const timer = setTimeout(() => {
      timers.delete(timer);
      answer(response, route);
    }, delayMs);
    timers.add(timer);
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;
  return {
    baseUrl,
    port,
    requests,
    serve(path, route) {
      routes.set(path, route);
      return `${baseUrl}${path}`;
    },
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function answer(response: ServerResponse, route: PictureRoute): void {
  if ("redirectTo" in route) {
    response.writeHead(route.status ?? 302, { Location: route.redirectTo }).end();
    return;
  }
  const headers = { "Content-Type": route.contentType ?? "image/png" };
  if (!route.streamed) {
    response
      .writeHead(route.status ?? 200, { ...headers, "Content-Length": route.body.length })
      .end(route.body);
    return;
  }
  response.writeHead(route.status ?? 200, headers);
  let offset = 0;
  const writeMore = (): void => {
    while (offset < route.body.length && !response.destroyed) {
      const piece = route.body.subarray(offset, offset + 64 * 1024);
      offset += piece.length;
      if (!response.write(piece)) {
        response.once("drain", writeMore);
        return;
      }
    }
    if (!response.destroyed) response.end();
  };
  writeMore();
}

/**
 * Bot config describing pictures with the scripted model and allowed to fetch them from a
 * picture server on 127.0.0.1 (loopback is refused unless `media.allowPrivateNetworks`).
 */
export const DESCRIBES_LOCAL_PICTURES = {
  llm: { models: { vision: ["main/scripted-model"] } },
  media: { allowPrivateNetworks: true },
};
