/**
 * Fencing of a cluster's session leases (docs/scale-out.md): each lease on a session carries a
 * token that only grows, and the store refuses a turn's durable step — its start, a send's
 * `pending` — when it carries a token older than one already seen for the session. A paused
 * instance that wakes up after another took its session over is stopped that way, whatever it
 * believes about its lease. Single-instance stores (SQLite) take the token and ignore it.
 */

/** The token of the lease a turn runs under: a positive integer that grows with each new holder. */
export type FenceToken = number;

/** A durable step was refused: another instance holds the session's lease with a newer token. */
export class SessionFenced extends Error {
  constructor(
    readonly sessionId: string,
    readonly token: FenceToken,
  ) {
    super(`session ${sessionId} is owned by another instance now (lease token ${token} is out of date)`);
    this.name = "SessionFenced";
  }
}

export function isSessionFenced(error: unknown): error is SessionFenced {
  return error instanceof SessionFenced;
}
