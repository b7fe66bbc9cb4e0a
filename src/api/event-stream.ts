import type { FastifyReply } from "fastify";

/** A client that reads this slowly is dropped rather than buffered for without bound. */
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;
/** Keeps proxies and browsers from closing a quiet stream. */
const HEARTBEAT_MS = 25_000;

/** Sends one named event with a JSON payload; returns false once the stream is closed. */
export type SendEvent = (event: string, data: unknown) => boolean;

/**
 * Turns a request into a server-sent event stream. `start` subscribes to whatever feeds the
 * stream and returns the disposer, called when the client goes away or is dropped.
 */
export function openEventStream(reply: FastifyReply, start: (send: SendEvent) => () => void): void {
  reply.hijack();
  const response = reply.raw;
  response.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    connection: "keep-alive",
    "x-accel-buffering": "no",
  });
  response.write(": connected\n\n");
  let open = true;
  let stop = () => {};
  const heartbeat = setInterval(() => response.write(": ping\n\n"), HEARTBEAT_MS);
  const close = () => {
    if (!open) return;
    open = false;
    clearInterval(heartbeat);
    stop();
    response.end();
  };
  const send: SendEvent = (event, data) => {
    if (!open) return false;
    if (response.writableLength > MAX_BUFFERED_BYTES) {
      close();
      return false;
    }
    response.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    return true;
  };
  // The response (not the request, which "closes" once read) tells when the client left.
  response.on("close", close);
  response.on("error", close);
  stop = start(send);
}
