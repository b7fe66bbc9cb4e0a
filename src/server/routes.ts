import type { IncomingMessage, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";

/** Handles an HTTP upgrade for one path; the handler owns the socket from then on. */
export type UpgradeHandler = (request: IncomingMessage, socket: Duplex, head: Buffer) => void;

/** Handles a raw HTTP request whose body has been read (bounded by the server's size limit). */
export type RawPostHandler = (request: IncomingMessage, body: Buffer, response: ServerResponse) => void;

/**
 * What the HTTP server offers to other modules (adapters, console): they register handlers
 * for their paths and get back a disposer that removes them.
 */
export interface HttpRoutes {
  onUpgrade(path: string, handler: UpgradeHandler): () => void;
  onPost(path: string, handler: RawPostHandler): () => void;
}
