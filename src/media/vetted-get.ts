import { lookup as dnsLookup } from "node:dns/promises";
import { request as httpRequest, type IncomingMessage, type RequestOptions } from "node:http";
import { request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";
import { isIP } from "node:net";
import { forbiddenAddressKind } from "./forbidden-addresses.ts";

/** Every address a host name resolves to (dns.lookup with `all`, by default). */
export type HostResolver = (hostname: string) => Promise<{ address: string; family: number }[]>;

export const systemResolver: HostResolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

export interface VettedGetOptions {
  allowPrivateNetworks: boolean;
  maxBytes: number;
  resolve: HostResolver;
  /** Aborts the whole fetch, redirects included (the caller's deadline and signal). */
  signal: AbortSignal;
  /** The Accept header: pictures unless the caller fetches something else (a web page). */
  accept?: string;
}

export type VettedGet = { ok: true; body: Buffer } | { ok: false; reason: string };

const MAX_REDIRECTS = 3;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * GETs `url` the way a picture from a chat may be fetched: http(s) only; every address the
 * host resolves to is checked and the connection goes to the checked address (a second DNS
 * answer cannot swap it); at most 3 redirects, each hop checked the same way; the body is
 * cut off at `maxBytes`. Rejects when a connection fails or `signal` aborts.
 */
export async function vettedGet(url: string, options: VettedGetOptions): Promise<VettedGet> {
  let current = url;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const target = await vetUrl(current, options);
    if (!target.ok) return target;
    const response = await send(target.url, target.address, options.signal, options.accept ?? "image/*");
    const location = response.headers.location;
    if (REDIRECT_STATUSES.has(response.statusCode ?? 0) && location) {
      response.destroy();
      current = new URL(location, target.url).href;
      continue;
    }
    if (response.statusCode !== 200) {
      response.destroy();
      return { ok: false, reason: `HTTP ${response.statusCode}` };
    }
    return readCapped(response, options.maxBytes);
  }
  return { ok: false, reason: `too many redirects (more than ${MAX_REDIRECTS})` };
}

type VettedTarget =
  | { ok: true; url: URL; address: { address: string; family: number } }
  | { ok: false; reason: string };

/** Checks one hop's scheme and every address its host resolves to. */
async function vetUrl(text: string, options: VettedGetOptions): Promise<VettedTarget> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, reason: "refused: not a URL" };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return { ok: false, reason: `refused: ${url.protocol} URLs are not fetched` };
  }
  // The URL parser has already turned decimal, hex and octal IPv4 forms into dotted quads.
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  const literalFamily = isIP(host);
  let addresses: { address: string; family: number }[];
  if (literalFamily !== 0) addresses = [{ address: host, family: literalFamily }];
  else {
    try {
      addresses = await options.resolve(host);
    } catch (error) {
      return {
        ok: false,
        reason: `cannot resolve ${host} (${(error as NodeJS.ErrnoException).code ?? "error"})`,
      };
    }
  }
  if (addresses.length === 0) return { ok: false, reason: `cannot resolve ${host}` };
  if (!options.allowPrivateNetworks) {
    for (const { address } of addresses) {
      const kind = forbiddenAddressKind(address);
      if (kind === undefined) continue;
      const what = address === host ? `${address} is ${kind}` : `${host} resolves to ${address}, ${kind}`;
      return { ok: false, reason: `refused: ${what}` };
    }
  }
  return { ok: true, url, address: addresses[0]! };
}

/** Sends the GET to the vetted address; TLS still checks the certificate against the host name. */
function send(
  url: URL,
  address: { address: string; family: number },
  signal: AbortSignal,
  accept: string,
): Promise<IncomingMessage> {
  // Node may ask for one address or (happy eyeballs) all of them; either way it gets the vetted one.
  const lookup: LookupFunction = (_hostname, lookupOptions, callback) => {
    if (lookupOptions.all) callback(null, [address]);
    else callback(null, address.address, address.family);
  };
  const requestOptions: RequestOptions = { method: "GET", lookup, signal, headers: { Accept: accept } };
  const request = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    request(url, requestOptions, resolve).on("error", reject).end();
  });
}

/** The body, or a refusal once it passes `maxBytes` (announced or streamed). */
function readCapped(response: IncomingMessage, maxBytes: number): Promise<VettedGet> {
  const announced = Number(response.headers["content-length"]);
  if (Number.isFinite(announced) && announced > maxBytes) {
    response.destroy();
    return Promise.resolve({ ok: false, reason: tooLargeReason(maxBytes, announced) });
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    response.on("data", (chunk: Buffer) => {
      received += chunk.length;
      if (received > maxBytes) {
        response.destroy();
        resolve({ ok: false, reason: tooLargeReason(maxBytes) });
        return;
      }
      chunks.push(chunk);
    });
    response.on("end", () => resolve({ ok: true, body: Buffer.concat(chunks) }));
    response.on("error", reject);
    response.on("close", () => {
      if (!response.complete) reject(new Error("the connection closed before the body ended"));
    });
  });
}

/** `too large: 12.3 MB over the 10 MB limit`; without a known size, `too large: over the 10 MB limit`. */
export function tooLargeReason(maxBytes: number, size?: number): string {
  return `too large: ${size === undefined ? "" : `${megabytes(size)} `}over the ${megabytes(maxBytes)} limit`;
}

function megabytes(bytes: number): string {
  return `${Number((bytes / (1024 * 1024)).toFixed(1))} MB`;
}
