/** Talks to the bot's `/api/*` with the bearer token the user logged in with. */

const TOKEN_KEY = "tsumugi.token";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(describe(status, body));
  }

  /** `problems` lines of a rejected config or setup, when the server sent them. */
  get problems(): string[] {
    const problems = (this.body as { problems?: unknown } | null)?.problems;
    return Array.isArray(problems) ? problems.map(String) : [];
  }
}

function describe(status: number, body: unknown): string {
  const message = (body as { message?: unknown } | null)?.message;
  return typeof message === "string" ? message : `HTTP ${status}`;
}

let token = localStorage.getItem(TOKEN_KEY) ?? "";
const unauthorizedListeners = new Set<() => void>();

export function setToken(value: string): void {
  token = value;
  if (value) localStorage.setItem(TOKEN_KEY, value);
  else localStorage.removeItem(TOKEN_KEY);
}

export function hasToken(): boolean {
  return token !== "";
}

/** Called whenever the server refuses the token (the app then shows the login page). */
export function onUnauthorized(listener: () => void): () => void {
  unauthorizedListeners.add(listener);
  return () => unauthorizedListeners.delete(listener);
}

/**
 * Headers of every API call: the token, and the console's marker, which lets a request change
 * state on a server without a token (a cross-site page cannot send it).
 */
export function apiHeaders(): Record<string, string> {
  return { "x-tsumugi-console": "1", ...(token ? { authorization: `Bearer ${token}` } : {}) };
}

export function reportUnauthorized(): void {
  for (const listener of unauthorizedListeners) listener();
}

async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(path, {
    method,
    headers: { ...apiHeaders(), ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  const parsed: unknown = text ? JSON.parse(text) : null;
  if (response.status === 401) reportUnauthorized();
  if (!response.ok) throw new ApiError(response.status, parsed);
  return parsed as T;
}

/**
 * A binary answer (a picture) as a Blob. Fetched with the API's headers rather than put in an
 * `<img src>`, which could not carry the bearer token.
 */
async function blob(path: string): Promise<Blob> {
  const response = await fetch(path, { headers: apiHeaders() });
  if (response.status === 401) reportUnauthorized();
  if (response.ok) return response.blob();
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: the status says enough
  }
  throw new ApiError(response.status, parsed);
}

export const api = {
  blob,
  get: <T>(path: string) => request<T>("GET", path),
  post: <T>(path: string, body: unknown) => request<T>("POST", path, body),
  put: <T>(path: string, body: unknown) => request<T>("PUT", path, body),
  patch: <T>(path: string, body: unknown) => request<T>("PATCH", path, body),
  delete: <T>(path: string) => request<T>("DELETE", path),
};

/** Builds `path?key=value&…`, leaving out empty values. */
export function withQuery(path: string, query: Record<string, string | number | undefined>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== "") params.set(key, String(value));
  }
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}
