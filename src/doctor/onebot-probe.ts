import { WebSocket } from "ws";
import type { OneBotAdapterConfig } from "../adapters/onebot/config.ts";
import { describeFetchError } from "../util/fetch-error.ts";
import { isRecord } from "../util/values.ts";

/** What a OneBot implementation said about the account, asked directly (http and forward-ws modes). */
export type OneBotProbe =
  | { kind: "refused-token"; status: number }
  | { kind: "unreachable"; why: string }
  | { kind: "answered"; selfId: string | undefined; online: boolean | undefined };

type DialledConfig = Extract<OneBotAdapterConfig, { mode: "http" | "forward-ws" }>;

/** Asks `get_login_info` and `get_status` over the adapter's own connection mode. */
export async function probeOneBot(adapter: DialledConfig, timeoutMs: number): Promise<OneBotProbe> {
  const ask = adapter.mode === "http" ? httpAsker(adapter, timeoutMs) : await wsAsker(adapter, timeoutMs);
  if ("kind" in ask) return ask;
  try {
    const login = await ask.call("get_login_info");
    if (login.refused !== undefined) return { kind: "refused-token", status: login.refused };
    const status = await ask.call("get_status");
    const selfId =
      isRecord(login.data) && login.data.user_id !== undefined ? String(login.data.user_id) : undefined;
    const online =
      isRecord(status.data) && typeof status.data.online === "boolean" ? status.data.online : undefined;
    return { kind: "answered", selfId, online };
  } catch (error) {
    return { kind: "unreachable", why: describeFetchError(error) };
  } finally {
    ask.close();
  }
}

interface Asker {
  /** The action's `data`, or `refused` with the HTTP status when the token was not accepted. */
  call(action: string): Promise<{ data?: unknown; refused?: number }>;
  close(): void;
}

function httpAsker(adapter: DialledConfig, timeoutMs: number): Asker {
  const base = adapter.url.replace(/\/+$/, "");
  return {
    async call(action) {
      const response = await fetch(`${base}/${action}`, {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          ...(adapter.accessToken ? { Authorization: `Bearer ${adapter.accessToken}` } : {}),
        },
        body: "{}",
        signal: AbortSignal.timeout(timeoutMs),
      });
      if (response.status === 401 || response.status === 403) return { refused: response.status };
      const answer: unknown = await response.json().catch(() => undefined);
      return { data: isRecord(answer) ? answer.data : undefined };
    },
    close() {},
  };
}

async function wsAsker(adapter: DialledConfig, timeoutMs: number): Promise<Asker | OneBotProbe> {
  const socket = new WebSocket(adapter.url, {
    headers: adapter.accessToken ? { Authorization: `Bearer ${adapter.accessToken}` } : {},
    handshakeTimeout: timeoutMs,
  });
  const opened = await new Promise<OneBotProbe | undefined>((resolve) => {
    socket.once("open", () => resolve(undefined));
    socket.once("unexpected-response", (_request, response) => {
      const status = response.statusCode ?? 0;
      resolve(
        status === 401 || status === 403
          ? { kind: "refused-token", status }
          : { kind: "unreachable", why: `HTTP ${status}` },
      );
    });
    socket.once("error", (error) => resolve({ kind: "unreachable", why: describeFetchError(error) }));
  });
  if (opened) {
    socket.terminate();
    return opened;
  }
  return {
    call(action) {
      const echo = `doctor-${action}`;
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no answer to ${action} within ${timeoutMs} ms`)),
          timeoutMs,
        );
        socket.on("message", (raw) => {
          let frame: unknown;
          try {
            frame = JSON.parse(String(raw));
          } catch {
            return;
          }
          if (!isRecord(frame) || frame.echo !== echo) return;
          clearTimeout(timer);
          resolve({ data: frame.data });
        });
        socket.send(JSON.stringify({ action, params: {}, echo }));
      });
    },
    close() {
      socket.terminate();
    },
  };
}
