/**
 * A OneBotAdapter wired to a OneBotStandIn over real sockets in any mode, with everything the
 * adapter reports collected for assertions. `close()` tears it all down.
 *
 *   const h = await startOneBotHarness({ mode: "reverse-ws" });
 *   h.standin.pushGroupMessage({ groupId: "20000", userId: "30000", message: "hi" });
 *   const message = await h.nextMessage();
 *   await h.close();
 */

import type { OneBotAdapterConfig, OneBotMode, ReconnectConfig } from "../../src/adapters/onebot/config.ts";
import { OneBotAdapter } from "../../src/adapters/onebot/onebot-adapter.ts";
import type { AccountStatus, AdapterEvents } from "../../src/adapters/types.ts";
import type { ChatMessage } from "../../src/message/inbound.ts";
import { startTestHttpServer, type TestHttpServer } from "./http-routes.ts";
import { Capture, LogCapture, type LogLine } from "./log-capture.ts";
import { OneBotStandIn, type OneBotStandInOptions } from "./onebot-standin.ts";

export const ONEBOT_PATH = "/onebot/v11/ws";
export const HTTP_EVENT_PATH = "/onebot/v11/http";

export interface OneBotHarnessOptions {
  mode: OneBotMode;
  selfId?: string;
  /** The stand-in's token; the adapter uses the same unless `adapterAccessToken` is given. */
  accessToken?: string;
  adapterAccessToken?: string;
  /** http mode: events are signed with this secret and the adapter checks it. */
  secret?: string;
  messageFormat?: OneBotStandInOptions["messageFormat"];
  actionTimeoutMs?: number;
  /** forward-ws only. */
  reconnect?: ReconnectConfig;
  /**
   * Default true: dial the adapter (reverse-ws) and wait until the account is connected.
   * false: return at once; reverse-ws tests then dial with `standin.connectReverse` themselves.
   */
  connect?: boolean;
}

export interface OneBotHarness {
  adapter: OneBotAdapter;
  standin: OneBotStandIn;
  server: TestHttpServer;
  config: OneBotAdapterConfig;
  /** Every message the adapter reported, oldest first. */
  messages: ChatMessage[];
  /** Every connection status the adapter reported, oldest first. */
  connections: AccountStatus[];
  logs: LogLine[];
  /** The first reported message (already reported or future) matching the predicate. */
  nextMessage(predicate?: (message: ChatMessage) => boolean, timeoutMs?: number): Promise<ChatMessage>;
  /** The first connection status (already reported or future) matching the predicate. */
  waitForConnection(
    predicate: (status: AccountStatus) => boolean,
    timeoutMs?: number,
  ): Promise<AccountStatus>;
  close(): Promise<void>;
}

export async function startOneBotHarness(options: OneBotHarnessOptions): Promise<OneBotHarness> {
  const selfId = options.selfId ?? "10000";
  const messages = new Capture<ChatMessage>();
  const connections = new Capture<AccountStatus>();
  const logs = new LogCapture();
  const logger = logs.logger();
  const events: AdapterEvents = {
    message: (message) => messages.push(message),
    connection: (status) => connections.push(status),
  };
  const server = await startTestHttpServer();
  const standin = new OneBotStandIn({
    selfId,
    accessToken: options.accessToken,
    messageFormat: options.messageFormat,
  });
  const common = {
    type: "onebot" as const,
    id: "qq",
    accessToken: options.adapterAccessToken ?? options.accessToken ?? "",
    actionTimeoutMs: options.actionTimeoutMs ?? 2_000,
  };
  let config: OneBotAdapterConfig;
  if (options.mode === "forward-ws") {
    config = {
      ...common,
      mode: "forward-ws",
      url: await standin.listenForward(),
      reconnect: options.reconnect ?? { minDelayMs: 50, maxDelayMs: 200 },
    };
  } else if (options.mode === "http") {
    const url = await standin.listenHttp({
      eventUrl: `${server.baseUrl}${HTTP_EVENT_PATH}`,
      secret: options.secret,
    });
    config = { ...common, mode: "http", path: HTTP_EVENT_PATH, url, secret: options.secret ?? "" };
  } else {
    config = { ...common, mode: "reverse-ws", path: ONEBOT_PATH };
  }
  const adapter = new OneBotAdapter({ config, routes: server.routes, events, logger });
  await adapter.start();

  const harness: OneBotHarness = {
    adapter,
    standin,
    server,
    config,
    messages: messages.items,
    connections: connections.items,
    logs: logs.lines,
    nextMessage: (predicate = () => true, timeoutMs = 2_000) =>
      messages.waitFor(predicate, timeoutMs, "message"),
    waitForConnection: (predicate, timeoutMs = 2_000) =>
      connections.waitFor(predicate, timeoutMs, "connection status"),
    close: async () => {
      await adapter.stop();
      await standin.close();
      await server.close();
    },
  };
  if (options.connect ?? true) {
    if (options.mode === "reverse-ws") await standin.connectReverse(server.wsUrl(ONEBOT_PATH));
    await harness.waitForConnection((status) => status.selfId === selfId && status.connected);
  }
  return harness;
}
