/** The reason a `fetch` failed, as short as it is said (ECONNREFUSED, ENOTFOUND, …). */
export function describeFetchError(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message;
}
