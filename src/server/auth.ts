import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";

/** Compares secrets in constant time so response timing does not leak them. */
export function secretsEqual(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The token a client presented: `Authorization: Bearer <t>` or `?access_token=<t>`. */
export function presentedToken(request: IncomingMessage): string | undefined {
  const header = request.headers.authorization;
  if (header) {
    const match = /^(?:Bearer|Token)\s+(.+)$/i.exec(header.trim());
    if (match) return match[1];
  }
  const url = new URL(request.url ?? "/", "http://localhost");
  return url.searchParams.get("access_token") ?? undefined;
}

/** True when no token is configured, or the request carries the configured one. */
export function isAuthorized(request: IncomingMessage, token: string): boolean {
  if (!token) return true;
  const given = presentedToken(request);
  return given !== undefined && secretsEqual(given, token);
}

const LOOPBACK_HOSTS = new Set(["localhost", "::1", "[::1]"]);

export function isLoopbackHost(host: string): boolean {
  return LOOPBACK_HOSTS.has(host) || /^127\.\d+\.\d+\.\d+$/.test(host);
}
