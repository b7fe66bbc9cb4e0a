import type { IncomingMessage, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";

/** Handles an HTTP upgrade for one path; the handler owns the socket from then on. */
export type UpgradeHandler = (request: IncomingMessage, socket: Duplex, head: Buffer) => void;

/** Handles a raw HTTP request whose body has been read (within its route's `RawPostOptions`). */
export type RawPostHandler = (request: IncomingMessage, body: Buffer, response: ServerResponse) => void;

/** How the server guards a raw POST path before its handler sees the request. */
export interface RawPostOptions {
  /** Largest body read; a longer one is refused with 413 (before reading, when Content-Length says so). */
  maxBodyBytes: number;
  /** The whole body must arrive within this long, or the request is cut off with 408. */
  bodyTimeoutMs: number;
  /**
   * For a path with no credential of its own: only requests addressed to this server's own
   * name (Host) and sent by no other web page (Origin) reach the handler, token or not.
   */
  ownOriginOnly: boolean;
}

/**
 * What the HTTP server offers to other modules (adapters, console): they register handlers
 * for their paths and get back a disposer that removes them.
 */
export interface HttpRoutes {
  onUpgrade(path: string, handler: UpgradeHandler): () => void;
  onPost(path: string, handler: RawPostHandler, options: RawPostOptions): () => void;
}
