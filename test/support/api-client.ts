/** Calls the console API as the front end does, returning status and parsed body. */

// biome-ignore lint/suspicious/noExplicitAny: answers are read field by field and asserted on
type Loose = any;

export interface ApiAnswer<T = Loose> {
  status: number;
  body: T;
}

export interface ApiClient {
  get<T = Loose>(path: string): Promise<ApiAnswer<T>>;
  post<T = Loose>(path: string, body: unknown): Promise<ApiAnswer<T>>;
  put<T = Loose>(path: string, body: unknown): Promise<ApiAnswer<T>>;
  request<T = Loose>(method: string, path: string, body?: unknown): Promise<ApiAnswer<T>>;
}

export function apiClient(baseUrl: string, token?: string): ApiClient {
  const request = async <T>(method: string, path: string, body?: unknown): Promise<ApiAnswer<T>> => {
    // The console's marker header: without a token, the server changes state only with it.
    const headers: Record<string, string> = { "x-tsumugi-console": "1" };
    if (token !== undefined) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers["content-type"] = "application/json";
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON (static files)
    }
    return { status: response.status, body: parsed as T };
  };
  return {
    get: (path) => request("GET", path),
    post: (path, body) => request("POST", path, body),
    put: (path, body) => request("PUT", path, body),
    request,
  };
}
