import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** One result as SearXNG's JSON API gives it. */
export interface SearxResult {
  title: string;
  url: string;
  content: string;
}

/**
 * A SearXNG-shaped search server on 127.0.0.1: `GET /search?q=…&format=json` answers
 * `{"results": [...]}` from `answer(q)`, and `GET /pages/<name>` serves the HTML pages given.
 * Every query is recorded.
 */
export class SearchStandIn {
  readonly queries: string[] = [];

  private constructor(
    private readonly server: Server,
    readonly baseUrl: string,
  ) {}

  static async start(
    answer: (query: string) => SearxResult[],
    pages: Record<string, string> = {},
  ): Promise<SearchStandIn> {
    let instance: SearchStandIn | undefined;
    const server = createServer((request, response) => {
      const url = new URL(request.url ?? "/", "http://stand-in");
      if (url.pathname === "/search" && url.searchParams.get("format") === "json") {
        const query = url.searchParams.get("q") ?? "";
        instance?.queries.push(query);
        response.writeHead(200, { "Content-Type": "application/json" });
        response.end(JSON.stringify({ query, results: answer(query) }));
        return;
      }
      const page = url.pathname.startsWith("/pages/")
        ? pages[url.pathname.slice("/pages/".length)]
        : undefined;
      if (page === undefined) {
        response.writeHead(404).end();
        return;
      }
      response.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
      response.end(page);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    instance = new SearchStandIn(server, `http://127.0.0.1:${port}`);
    return instance;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
