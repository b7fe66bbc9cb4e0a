import { APICallError } from "ai";

/** What the client needs to know about one failed attempt to decide what to do next. */
export interface ClassifiedError {
  message: string;
  status?: number;
  /** Worth another try on the same model: 429, 408, 5xx, timeouts, network failures. */
  retryable: boolean;
  /** Server-requested wait before retrying (`retry-after-ms` / `retry-after`). */
  retryAfterMs?: number;
  /** A 400 that names the temperature parameter (e.g. OpenAI o-series). */
  rejectsTemperature: boolean;
}

export function classifyError(error: unknown, timedOut: boolean, timeoutMs: number): ClassifiedError {
  if (timedOut) {
    return { message: `timed out after ${timeoutMs} ms`, retryable: true, rejectsTemperature: false };
  }
  if (APICallError.isInstance(error)) {
    const status = error.statusCode;
    const detail = error.responseBody ?? error.message;
    return {
      message: status === undefined ? error.message : `HTTP ${status}: ${error.message}`,
      status,
      retryable: status === undefined ? error.isRetryable : status === 408 || status === 429 || status >= 500,
      retryAfterMs: retryAfterMs(error.responseHeaders),
      rejectsTemperature: status === 400 && /temperature/i.test(detail),
    };
  }
  const message = error instanceof Error ? error.message : String(error);
  // Node's fetch reports dropped connections and resets as TypeErrors ("fetch failed", "terminated").
  return { message, retryable: error instanceof TypeError, rejectsTemperature: false };
}

function retryAfterMs(headers: Record<string, string> | undefined): number | undefined {
  if (!headers) return undefined;
  const milliseconds = Number.parseFloat(headers["retry-after-ms"] ?? "");
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return milliseconds;
  const value = headers["retry-after"];
  if (value === undefined) return undefined;
  const seconds = Number.parseFloat(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}
