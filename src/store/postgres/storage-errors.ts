/**
 * SQLSTATE classes that say the database cannot take writes right now, as opposed to a row it
 * will never accept: connection exceptions (08), insufficient resources such as a full disk
 * (53), an operator or crash shutdown and a server still starting (57), system errors (58),
 * serialisation failures and deadlocks (40), a lock not available (55), an invalid
 * authorisation or database after a server change (28, 3D).
 */
const UNAVAILABLE_CLASSES = ["08", "53", "57", "58", "40", "55", "28", "3D"];
/** Single states outside those classes: a read-only server (a standby after failover). */
const UNAVAILABLE_STATES = ["25006"];

/**
 * Whether a PostgreSQL write failed for the server's state (retry later, keep the rows) rather
 * than for a row. Errors without a SQLSTATE come from the connection (ECONNREFUSED, a socket
 * closed mid-query, the pool's connect timeout) unless our own code threw them.
 */
export function isPgUnavailable(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) {
    return UNAVAILABLE_STATES.includes(code) || UNAVAILABLE_CLASSES.includes(code.slice(0, 2));
  }
  // Node's socket errors: ECONNREFUSED, ECONNRESET, ETIMEDOUT, ENOTFOUND, EPIPE, …
  if (typeof code === "string" && /^E[A-Z_]+$/.test(code)) return true;
  return typeof message === "string" && CONNECTION_MESSAGES.some((pattern) => pattern.test(message));
}

/** What pg throws, without a code, when a connection ends or cannot be had in time. */
const CONNECTION_MESSAGES = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect/,
  /is not queryable$/,
  /^Cannot use a pool after calling end/,
];
