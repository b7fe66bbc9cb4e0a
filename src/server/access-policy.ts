import type { IncomingMessage } from "node:http";
import { isIP } from "node:net";
import { hasBearerToken } from "./auth.ts";

/**
 * Sent by the console with every API call. A cross-site form cannot send a custom header, and
 * a cross-site fetch with one needs a CORS preflight this server never answers.
 */
export const CONSOLE_HEADER = "x-tsumugi-console";

export interface AccessSettings {
  /** server.token; empty means loopback only, guarded by Host and Origin checks instead. */
  token: string;
  /** server.allowedHosts: more names the server is reached by, `host` (any port) or `host:port`. */
  allowedHosts: readonly string[];
}

/** Why a request is turned away, sent as `{error, message}`. */
export interface Refusal {
  status: 401 | 403;
  error: "unauthorized" | "forbidden";
  message: string;
}

const UNAUTHORIZED: Refusal = {
  status: 401,
  error: "unauthorized",
  message: "missing or wrong bearer token",
};

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Who may use the server. With a token, the API wants it in the Authorization header, which a
 * browser never adds on its own, so neither rebinding nor cross-site requests can use it. With
 * no token, every request must be addressed to the server's own name (a rebound DNS name is
 * not), and the API changes state only for the console's own origin.
 */
export class AccessPolicy {
  private readonly allowedHosts: Set<string>;

  constructor(
    private readonly settings: AccessSettings,
    /** The port actually listened on (the config may say 0). */
    private readonly port: () => number,
  ) {
    this.allowedHosts = new Set(settings.allowedHosts.map((host) => host.toLowerCase()));
  }

  /** Any request (console files and /healthz too). */
  checkHost(request: IncomingMessage): Refusal | undefined {
    if (this.settings.token) return undefined;
    const host = request.headers.host ?? "";
    if (this.isOwnHost(host)) return undefined;
    return forbidden(`host "${host}" is not this server's address; add it to server.allowedHosts`);
  }

  /** A request to the API, after checkHost. */
  checkApi(request: IncomingMessage): Refusal | undefined {
    const { token } = this.settings;
    if (token) return hasBearerToken(request, token) ? undefined : UNAUTHORIZED;
    const origin = request.headers.origin;
    if (origin !== undefined) {
      return this.isOwnOrigin(origin) ? undefined : forbidden(`origin "${origin}" is not this console`);
    }
    const method = request.method ?? "GET";
    if (SAFE_METHODS.has(method) || request.headers[CONSOLE_HEADER] !== undefined) return undefined;
    return forbidden(`${method} without an Origin needs the ${CONSOLE_HEADER} header`);
  }

  /** `name[:port]` names this server: a loopback name at our port, or an allowed host. */
  private isOwnHost(value: string): boolean {
    const match = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d+))?$/.exec(value.trim().toLowerCase());
    if (!match) return false;
    const [, name = "", port] = match;
    if (this.allowedHosts.has(name) || (port !== undefined && this.allowedHosts.has(`${name}:${port}`))) {
      return true;
    }
    // *.localhost always resolves to loopback in browsers (RFC 6761), so it cannot be rebound.
    const loopback = isLoopbackHost(name) || name.endsWith(".localhost");
    return loopback && Number(port ?? 80) === this.port();
  }

  private isOwnOrigin(origin: string): boolean {
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      return false; // "null" (sandboxed frames, file: pages) and garbage
    }
    return (url.protocol === "http:" || url.protocol === "https:") && this.isOwnHost(url.host);
  }
}

function forbidden(message: string): Refusal {
  return { status: 403, error: "forbidden", message };
}

/** Whether the host name or address is this machine only (the console may then go without a token). */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, "$1").toLowerCase();
  if (bare === "localhost") return true;
  if (isIP(bare) === 4) return bare.startsWith("127.");
  return bare === "::1" || /^::ffff:127\./.test(bare);
}
