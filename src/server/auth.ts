import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";

/** Constant-time comparison that also hides the length of the expected secret. */
export function secretsEqual(given: string, expected: string): boolean {
  const digest = (text: string) => createHash("sha256").update(text, "utf8").digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/** The token in `Authorization: Bearer <t>` (or `Token <t>`), the only place the API reads it. */
export function bearerToken(request: IncomingMessage): string | undefined {
  const header = request.headers.authorization;
  return (header ? /^(?:Bearer|Token)\s+(.+)$/i.exec(header.trim()) : null)?.[1];
}

/** True when the request's Authorization header carries `expected`. */
export function hasBearerToken(request: IncomingMessage, expected: string): boolean {
  const token = bearerToken(request);
  return token !== undefined && secretsEqual(token, expected);
}

/**
 * True when the request carries `expected` the way OneBot v11 implementations send their
 * access token: in the Authorization header or as `?access_token=` (the reverse-WS handshake
 * of several implementations can only do the latter). Not for the console API, whose token
 * must not end up in URLs, logs and browser history.
 */
export function hasOneBotAccessToken(request: IncomingMessage, expected: string): boolean {
  const token =
    bearerToken(request) ??
    new URL(request.url ?? "/", "http://localhost").searchParams.get("access_token") ??
    undefined;
  return token !== undefined && secretsEqual(token, expected);
}
