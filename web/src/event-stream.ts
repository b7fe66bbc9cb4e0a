import { apiHeaders, reportUnauthorized } from "./api.ts";

export type StreamHandler = (event: string, data: unknown) => void;

const RETRY_MS = 2_000;

/**
 * Follows a server-sent event stream of the API. EventSource cannot send the Authorization
 * header, so the stream is read with fetch. Reconnects after a drop until `stop` is called.
 */
export function followStream(path: string, handler: StreamHandler): () => void {
  const controller = new AbortController();
  const run = async () => {
    while (!controller.signal.aborted) {
      try {
        const response = await fetch(path, { headers: apiHeaders(), signal: controller.signal });
        if (response.status === 401) {
          reportUnauthorized();
          return;
        }
        if (response.ok && response.body) await readEvents(response.body, handler);
      } catch {
        // Dropped or aborted: retry below unless stopped.
      }
      if (!controller.signal.aborted) await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
  };
  void run();
  return () => controller.abort();
}

async function readEvents(body: ReadableStream<Uint8Array>, handler: StreamHandler): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let end = buffer.indexOf("\n\n");
    while (end !== -1) {
      dispatch(buffer.slice(0, end), handler);
      buffer = buffer.slice(end + 2);
      end = buffer.indexOf("\n\n");
    }
  }
}

function dispatch(block: string, handler: StreamHandler): void {
  let event = "message";
  const data: string[] = [];
  for (const line of block.split("\n")) {
    if (line.startsWith("event: ")) event = line.slice(7);
    else if (line.startsWith("data: ")) data.push(line.slice(6));
  }
  if (data.length > 0) handler(event, JSON.parse(data.join("\n")));
}
