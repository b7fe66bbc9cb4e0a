import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";

/** Constant-time comparison that also hides the length of the expected secret. */
export function secretsEqual(given: string, expected: string): boolean {
  const digest = (text: string) => createHash("sha256").update(text, "utf8").digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/** The token a OneBot peer presents: `Authorization: Bearer <t>` (or `Token <t>`) or `?access_token=`. */
export function presentedToken(request: IncomingMessage): string | undefined {
  const header = request.headers.authorization;
  const match = header ? /^(?:Bearer|Token)\s+(.+)$/i.exec(header.trim()) : null;
  if (match) return match[1];
  const query = new URL(request.url ?? "/", "http://localhost").searchParams.get("access_token");
  return query ?? undefined;
}

export function requestHasToken(request: IncomingMessage, expected: string): boolean {
  const token = presentedToken(request);
  return token !== undefined && secretsEqual(token, expected);
}

/** Checks `X-Signature: sha1=<hex HMAC-SHA1(secret, raw body)>` as OneBot HTTP POST sends it. */
export function signatureMatches(
  body: Buffer,
  header: string | string[] | undefined,
  secret: string,
): boolean {
  if (typeof header !== "string") return false;
  const expected = `sha1=${createHmac("sha1", secret).update(body).digest("hex")}`;
  return secretsEqual(header.trim().toLowerCase(), expected);
}
