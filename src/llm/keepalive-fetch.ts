import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";

/** Largest model answer accepted, so a misbehaving endpoint cannot exhaust memory. */
const MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

/**
 * The `fetch` the AI SDK providers are given: plain node:http(s) over keep-alive sockets,
 * answering with a buffered `Response`. Model calls are small JSON requests answered in one
 * piece (we never stream), and this costs a fraction of the CPU of Node's WHATWG fetch, which
 * dominated the bot's own time per turn.
 */
export function createKeepAliveFetch(): typeof fetch {
  const httpAgent = new HttpAgent({ keepAlive: true, maxSockets: 64 });
  const httpsAgent = new HttpsAgent({ keepAlive: true, maxSockets: 64 });
  return (input, init) => request(input, init, httpAgent, httpsAgent);
}

function request(
  input: Parameters<typeof fetch>[0],
  init: Parameters<typeof fetch>[1],
  httpAgent: HttpAgent,
  httpsAgent: HttpsAgent,
): Promise<Response> {
  const url = new URL(input instanceof Request ? input.url : String(input));
  const signal = init?.signal ?? undefined;
  const headers = new Headers(init?.headers);
  const body = init?.body;
  if (body !== undefined && body !== null && typeof body !== "string") {
    // The SDK sends JSON strings; anything else goes through the platform fetch.
    return fetch(input, init);
  }
  return new Promise<Response>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const secure = url.protocol === "https:";
    const outgoing = (secure ? httpsRequest : httpRequest)(url, {
      method: init?.method ?? "GET",
      headers: Object.fromEntries(headers),
      agent: secure ? httpsAgent : httpAgent,
    });
    const onAbort = () =>
      outgoing.destroy(signal?.reason instanceof Error ? signal.reason : new Error("aborted"));
    signal?.addEventListener("abort", onAbort, { once: true });
    const finish = () => signal?.removeEventListener("abort", onAbort);
    outgoing.on("error", (error) => {
      finish();
      // Like the platform fetch: an abort rejects with the signal's reason, a network failure
      // with TypeError("fetch failed"), which callers (and the AI SDK) treat as retryable.
      reject(signal?.aborted ? signal.reason : new TypeError("fetch failed", { cause: error }));
    });
    outgoing.on("response", (incoming: IncomingMessage) => {
      const chunks: Buffer[] = [];
      let size = 0;
      incoming.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_RESPONSE_BYTES) {
          outgoing.destroy(new Error(`model response larger than ${MAX_RESPONSE_BYTES} bytes`));
          return;
        }
        chunks.push(chunk);
      });
      incoming.on("error", (error) => {
        finish();
        reject(signal?.aborted ? signal.reason : new TypeError("fetch failed", { cause: error }));
      });
      incoming.on("end", () => {
        finish();
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(incoming.headers)) {
          if (value === undefined) continue;
          for (const item of Array.isArray(value) ? value : [value]) responseHeaders.append(name, item);
        }
        const status = incoming.statusCode ?? 502;
        const nullBody = status === 204 || status === 304;
        resolve(
          new Response(nullBody ? null : Buffer.concat(chunks), {
            status,
            statusText: incoming.statusMessage ?? "",
            headers: responseHeaders,
          }),
        );
      });
    });
    outgoing.end(body ?? undefined);
  });
}
