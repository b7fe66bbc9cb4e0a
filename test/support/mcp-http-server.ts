/**
 * The test MCP server (mcp-test-server.ts) over HTTP, in this process: streamable HTTP at
 * `/mcp` with one MCP session per client, as the SDK's stateful example does, and the older
 * HTTP+SSE transport at `/sse` (posts to `/messages`). `close()` takes it down (a test of a
 * server that went away); `start` again on the same port brings it back.
 */
import { randomUUID } from "node:crypto";
import { createServer, type Server as HttpServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { createTestMcpServer, type TestMcpServerOptions } from "./mcp-test-server.ts";

export interface McpHttpServer {
  /** The streamable HTTP endpoint. */
  url: string;
  /** The HTTP+SSE endpoint (`transport: sse`). */
  sseUrl: string;
  port: number;
  /** The headers of every request received, in order. */
  requestHeaders: IncomingMessage["headers"][];
  close(): Promise<void>;
}

export async function startMcpHttpServer(
  options: TestMcpServerOptions & { port?: number } = {},
): Promise<McpHttpServer> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const sseSessions = new Map<string, SSEServerTransport>();
  const requestHeaders: IncomingMessage["headers"][] = [];
  const http: HttpServer = createServer(async (request, response) => {
    requestHeaders.push(request.headers);
    const path = new URL(request.url ?? "/", "http://localhost");
    if (request.method === "GET" && path.pathname === "/sse") {
      const sse = new SSEServerTransport("/messages", response);
      sseSessions.set(sse.sessionId, sse);
      await createTestMcpServer(options).connect(sse);
      return;
    }
    if (path.pathname === "/messages") {
      const sse = sseSessions.get(path.searchParams.get("sessionId") ?? "");
      if (sse) await sse.handlePostMessage(request, response);
      else response.writeHead(404).end();
      return;
    }
    const sessionId = request.headers["mcp-session-id"];
    let transport = typeof sessionId === "string" ? sessions.get(sessionId) : undefined;
    if (!transport) {
      if (sessionId !== undefined) {
        response.writeHead(404).end();
        return;
      }
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          sessions.set(id, created);
        },
      });
      await createTestMcpServer(options).connect(created);
      transport = created;
    }
    await transport.handleRequest(request, response);
  });
  await new Promise<void>((resolve) => http.listen(options.port ?? 0, "127.0.0.1", resolve));
  const port = (http.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    sseUrl: `http://127.0.0.1:${port}/sse`,
    port,
    requestHeaders,
    async close() {
      for (const transport of [...sessions.values(), ...sseSessions.values()]) await transport.close();
      sessions.clear();
      sseSessions.clear();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
