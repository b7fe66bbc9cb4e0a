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
 * What a browser's `Sec-Fetch-Site` says of a request another page made: `cross-site`, or
 * `same-site` (another origin of the same site, e.g. another port on localhost). The console
 * itself is `same-origin`; a typed URL is `none`; tools that are not browsers send nothing.
 */
const OTHER_SITES = new Set(["cross-site", "same-site"]);

/**
 * Who may use the server. With a token, the API wants it in the Authorization header, which a
 * browser never adds on its own, so neither rebinding nor cross-site requests can use it. With
 * no token, every request must be addressed to the server's own name (a rebound DNS name is
 * not), and the API changes state only for the console's own origin. Either way a request a
 * browser marks as coming from another site is refused, whatever its method.
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
    return this.hostRefusal(request);
  }

  /**
   * A path with no credential of its own (OneBot HTTP events without `secret`), token or not:
   * the no-token rules, addressed to this server's own name and not sent by another site's page.
   */
  checkOwnOrigin(request: IncomingMessage): Refusal | undefined {
    return this.hostRefusal(request) ?? this.otherSiteRefusal(request) ?? this.originRefusal(request);
  }

  /** A request to the API, after checkHost. */
  checkApi(request: IncomingMessage): Refusal | undefined {
    // No other page may use the API, not even to read: an <img> GET without Origin would have
    // the bot fetch a picture for it.
    const otherSite = this.otherSiteRefusal(request);
    if (otherSite) return otherSite;
    const { token } = this.settings;
    if (token) return hasBearerToken(request, token) ? undefined : UNAUTHORIZED;
    if (request.headers.origin !== undefined) return this.originRefusal(request);
    const method = request.method ?? "GET";
    if (SAFE_METHODS.has(method) || request.headers[CONSOLE_HEADER] !== undefined) return undefined;
    return forbidden(`${method} without an Origin needs the ${CONSOLE_HEADER} header`);
  }

  private hostRefusal(request: IncomingMessage): Refusal | undefined {
    const host = request.headers.host ?? "";
    if (this.isOwnHost(host)) return undefined;
    return forbidden(`host "${host}" is not this server's address; add it to server.allowedHosts`);
  }

  /** A request a browser marks as made by another site's page, whatever its Origin says. */
  private otherSiteRefusal(request: IncomingMessage): Refusal | undefined {
    const site = request.headers["sec-fetch-site"];
    if (typeof site === "string" && OTHER_SITES.has(site)) {
      return forbidden(`requests from another site (Sec-Fetch-Site: ${site}) are refused`);
    }
    return undefined;
  }

  /** A browser names the page that sent a request in Origin; a client that is not a browser sends none. */
  private originRefusal(request: IncomingMessage): Refusal | undefined {
    const origin = request.headers.origin;
    if (origin === undefined || this.isOwnOrigin(origin)) return undefined;
    return forbidden(`origin "${origin}" is not this console`);
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
