/**
 * Runs one component call (a tool, hook, enricher or reply extension) under its time limit.
 * The handler gets its own signal, aborted when `timeoutMs` passes or `outer` (the turn's
 * signal) aborts; the returned promise then rejects at once with the abort reason
 * (`timed out after N ms` for the limit), whether or not the handler heeds its signal, so a
 * stuck plugin never holds up the turn longer than its limit.
 */
export async function callWithLimit<T>(
  timeoutMs: number,
  outer: AbortSignal | undefined,
  call: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  const forwardAbort = () => controller.abort(outer?.reason);
  if (outer?.aborted) forwardAbort();
  else outer?.addEventListener("abort", forwardAbort, { once: true });
  const timer = setTimeout(() => controller.abort(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
  const aborted = new Promise<never>((_, reject) => {
    const stop = () => reject(controller.signal.reason);
    if (controller.signal.aborted) stop();
    else controller.signal.addEventListener("abort", stop, { once: true });
  });
  try {
    return await Promise.race([call(controller.signal), aborted]);
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener("abort", forwardAbort);
  }
}
