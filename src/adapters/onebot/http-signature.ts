import { createHmac } from "node:crypto";
import { secretsEqual } from "../../server/auth.ts";

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
