import { createPrivateKey, createPublicKey, type KeyObject, sign, verify } from "node:crypto";

/**
 * QQ's bot platform signs webhook events with Ed25519, and bots answer its callback-address
 * validation (op 13) the same way. There is no separate key: the seed is the AppSecret,
 * repeated until it is 32 bytes long and cut there.
 */

const SEED_BYTES = 32;
/** DER header of a PKCS #8 Ed25519 private key; the 32-byte seed follows it. */
const PKCS8_ED25519_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");
const SIGNATURE_BYTES = 64;

export interface WebhookKeys {
  privateKey: KeyObject;
  publicKey: KeyObject;
}

export function keysFromSecret(secret: string): WebhookKeys {
  let seed = Buffer.from(secret, "utf8");
  if (seed.length === 0) throw new Error("an empty AppSecret derives no key");
  while (seed.length < SEED_BYTES) seed = Buffer.concat([seed, seed]);
  const privateKey = createPrivateKey({
    key: Buffer.concat([PKCS8_ED25519_PREFIX, seed.subarray(0, SEED_BYTES)]),
    format: "der",
    type: "pkcs8",
  });
  return { privateKey, publicKey: createPublicKey(privateKey) };
}

/** Hex Ed25519 signature of `message`. */
export function signHex(keys: WebhookKeys, message: string | Buffer): string {
  return sign(null, Buffer.from(message), keys.privateKey).toString("hex");
}

/** Whether `signatureHex` is the platform's signature of timestamp + raw body. */
export function eventSignatureMatches(
  keys: WebhookKeys,
  timestamp: string | string[] | undefined,
  signatureHex: string | string[] | undefined,
  body: Buffer,
): boolean {
  if (typeof timestamp !== "string" || typeof signatureHex !== "string") return false;
  if (!/^[0-9a-f]+$/i.test(signatureHex) || signatureHex.length !== SIGNATURE_BYTES * 2) return false;
  const message = Buffer.concat([Buffer.from(timestamp, "utf8"), body]);
  return verify(null, message, keys.publicKey, Buffer.from(signatureHex, "hex"));
}
