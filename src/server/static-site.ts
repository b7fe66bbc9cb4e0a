import { createReadStream, existsSync, statSync } from "node:fs";
import { extname, join, normalize, sep } from "node:path";
import type { FastifyInstance } from "fastify";
import { namesApiPath } from "./api-path.ts";

const CONTENT_TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
};

const NOT_BUILT = `<!doctype html><meta charset="utf-8"><title>Tsumugi</title>
<p>The console has not been built. Run <code>npm run build:web</code> (npm install and npm start do it) and reload.</p>`;

/**
 * Serves the built console from `root` (web/dist): files by path, and `index.html` for every
 * other GET whose path does not read as `/api` in any spelling, so the single-page app's own
 * routes survive a reload. Everything else unmatched (other methods, unknown API paths) is 404. Vite puts
 * content-hashed files under `assets/`, which may be cached for good.
 */
export function serveStaticSite(app: FastifyInstance, root: string): void {
  app.setNotFoundHandler(async (request, reply) => {
    const path = decodePath(request.url);
    if (path === undefined) return reply.code(400).send({ error: "bad_request", message: "malformed path" });
    if ((request.method !== "GET" && request.method !== "HEAD") || namesApiPath(request.url)) {
      return reply.code(404).send({ error: "not_found", message: `no route for ${request.method} ${path}` });
    }
    const file = fileWithin(root, path);
    if (file) {
      const immutable = path.startsWith("/assets/");
      return reply
        .header("cache-control", immutable ? "public, max-age=31536000, immutable" : "no-cache")
        .type(CONTENT_TYPES[extname(file)] ?? "application/octet-stream")
        .send(createReadStream(file));
    }
    const index = join(root, "index.html");
    if (!existsSync(index)) return reply.type(CONTENT_TYPES[".html"]!).send(NOT_BUILT);
    return reply
      .header("cache-control", "no-cache")
      .type(CONTENT_TYPES[".html"]!)
      .send(createReadStream(index));
  });
}

function decodePath(url: string): string | undefined {
  try {
    return decodeURIComponent(url.split("?")[0] ?? "/");
  } catch {
    return undefined;
  }
}

/** The regular file `path` names inside `root`, or undefined (also for any path escaping it). */
function fileWithin(root: string, path: string): string | undefined {
  const file = normalize(join(root, path));
  if (!file.startsWith(root.endsWith(sep) ? root : root + sep)) return undefined;
  try {
    return statSync(file).isFile() ? file : undefined;
  } catch {
    return undefined;
  }
}
