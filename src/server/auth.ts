import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";

/** Constant-time comparison that also hides the length of the expected secret. */
export function secretsEqual(given: string, expected: string): boolean {
  const digest = (text: string) => createHash("sha256").update(text, "utf8").digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/** The token a client presents: `Authorization: Bearer <t>` (or `Token <t>`) or `?access_token=<t>`. */
export function presentedToken(request: IncomingMessage): string | undefined {
  const header = request.headers.authorization;
  const match = header ? /^(?:Bearer|Token)\s+(.+)$/i.exec(header.trim()) : null;
  if (match) return match[1];
  const query = new URL(request.url ?? "/", "http://localhost").searchParams.get("access_token");
  return query ?? undefined;
}

/** True when the request carries `expected`. */
export function requestHasToken(request: IncomingMessage, expected: string): boolean {
  const token = presentedToken(request);
  return token !== undefined && secretsEqual(token, expected);
}

/** True when no token is configured, or the request carries the configured one. */
export function isAuthorized(request: IncomingMessage, token: string): boolean {
  return !token || requestHasToken(request, token);
}
