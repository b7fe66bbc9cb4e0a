import {
  type ClientRequest,
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingMessage,
} from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";

/** Largest model answer accepted, so a misbehaving endpoint cannot exhaust memory. */
const MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

/**
 * The `fetch` the AI SDK providers are given: plain node:http(s) over keep-alive sockets,
 * answering with a buffered `Response`, or a streamed one for server-sent events (the
 * replyer's streamed answers). This costs a fraction of the CPU of Node's WHATWG fetch,
 * which dominated the bot's own time per turn.
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
      if (incoming.headers["content-type"]?.startsWith("text/event-stream")) {
        const fail = (error: unknown) =>
          signal?.aborted ? signal.reason : new TypeError("fetch failed", { cause: error });
        resolve(
          new Response(eventStream(incoming, outgoing, finish, fail), {
            status: incoming.statusCode ?? 502,
            headers: headersOf(incoming),
          }),
        );
        return;
      }
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
        const responseHeaders = headersOf(incoming);
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

function headersOf(incoming: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  return headers;
}

/**
 * A server-sent-events body as it arrives. It ends with the response, or fails when the
 * connection breaks or the call is aborted (a timeout mid-stream); cancelling it closes the
 * connection. The size limit holds for the whole stream.
 */
function eventStream(
  incoming: IncomingMessage,
  outgoing: ClientRequest,
  finish: () => void,
  fail: (error: unknown) => unknown,
): ReadableStream<Uint8Array> {
  let size = 0;
  let ended = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      incoming.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_RESPONSE_BYTES) {
          outgoing.destroy(new Error(`model response larger than ${MAX_RESPONSE_BYTES} bytes`));
          return;
        }
        controller.enqueue(new Uint8Array(chunk));
      });
      incoming.on("end", () => {
        ended = true;
        finish();
        controller.close();
      });
      incoming.on("close", () => {
        if (ended) return;
        ended = true;
        finish();
        controller.error(fail(new Error("the connection closed mid-stream")));
      });
    },
    cancel() {
      ended = true;
      finish();
      outgoing.destroy();
    },
  });
}
