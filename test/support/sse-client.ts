/** Reads a server-sent event stream over a real HTTP connection, for API tests. */
export interface SseClient {
  events: Array<{ event: string; data: unknown }>;
  /** Resolves with the first event (already received or still to come) matching `predicate`. */
  waitFor(predicate: (event: string, data: unknown) => boolean, timeoutMs?: number): Promise<unknown>;
  close(): void;
}

export async function openSse(url: string, headers: Record<string, string>): Promise<SseClient> {
  const controller = new AbortController();
  const response = await fetch(url, { headers, signal: controller.signal });
  if (!response.ok || !response.body) throw new Error(`stream refused: HTTP ${response.status}`);
  const events: SseClient["events"] = [];
  const wakers = new Set<() => void>();
  void (async () => {
    const decoder = new TextDecoder();
    let buffer = "";
    try {
      for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end = buffer.indexOf("\n\n");
        while (end !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (event && data) events.push({ event, data: JSON.parse(data) });
          for (const wake of wakers) wake();
          end = buffer.indexOf("\n\n");
        }
      }
    } catch {
      // closed by the test
    }
  })();
  return {
    events,
    waitFor(predicate, timeoutMs = 5_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = events.find((entry) => predicate(entry.event, entry.data));
          if (!found) return;
          clearTimeout(timer);
          wakers.delete(check);
          resolve(found.data);
        };
        const timer = setTimeout(() => {
          wakers.delete(check);
          reject(new Error(`no matching stream event within ${timeoutMs} ms`));
        }, timeoutMs);
        wakers.add(check);
        check();
      });
    },
    close: () => controller.abort(),
  };
}
