import type { Logger } from "../../log/logger.ts";
import { idToString, toWireId } from "../../message/onebot-values.ts";
import { toOneBotSegments } from "../../message/onebot-wire.ts";
import type { Segment } from "../../message/segment.ts";
import type { HttpRoutes } from "../../server/routes.ts";
import { isRecord } from "../../util/values.ts";
import type {
  AccountStatus,
  ActionOptions,
  AdapterEvents,
  ChatAdapter,
  GroupActions,
  SendTarget,
} from "../types.ts";
import { AccountTable } from "./account-table.ts";
import type { OneBotAdapterConfig } from "./config.ts";
import { OneBotEventDispatcher } from "./event-dispatcher.ts";
import { ForwardWsTransport } from "./forward-ws.ts";
import { oneBotGroupActions } from "./group-actions.ts";
import { HttpTransport } from "./http-mode.ts";
import { ReverseWsTransport } from "./reverse-ws.ts";
import type { ConnectionChange, OneBotTransport, TransportSink } from "./transport.ts";

export interface OneBotAdapterOptions {
  config: OneBotAdapterConfig;
  routes: HttpRoutes;
  events: AdapterEvents;
  /** Expected to carry the adapter id already (`logger.child({ adapter: id })`). */
  logger: Logger;
}

/** A OneBot v11 implementation (NapCat, LLOneBot, Lagrange, …) as a ChatAdapter, in any connection mode. */
export class OneBotAdapter implements ChatAdapter {
  readonly id: string;
  readonly platform = "onebot";
  readonly #config: OneBotAdapterConfig;
  readonly #events: AdapterEvents;
  readonly #logger: Logger;
  readonly #accounts = new AccountTable();
  readonly #dispatcher: OneBotEventDispatcher;
  readonly #transport: OneBotTransport;
  readonly groups: GroupActions = oneBotGroupActions((selfId, action, params) =>
    this.callAction(selfId, action, params),
  );

  constructor(options: OneBotAdapterOptions) {
    const { config, routes, events } = options;
    this.id = config.id;
    this.#config = config;
    this.#events = events;
    this.#logger = options.logger;
    this.#dispatcher = new OneBotEventDispatcher({
      adapterId: config.id,
      events,
      accounts: this.#accounts,
      logger: this.#logger,
    });
    const sink: TransportSink = {
      event: (event, selfId) => this.#dispatcher.dispatch(event, selfId),
      connection: (change) => this.#connectionChanged(change),
    };
    this.#transport = createTransport(config, routes, sink, this.#logger);
  }

  start(): Promise<void> {
    return this.#transport.start();
  }

  stop(): Promise<void> {
    return this.#transport.stop();
  }

  accounts(): AccountStatus[] {
    return this.#accounts.list();
  }

  async send(
    target: SendTarget,
    segments: Segment[],
    options?: ActionOptions,
  ): Promise<{ messageId: string }> {
    const message = toOneBotSegments(segments);
    const peer = toWireId(target.peerId);
    const data =
      target.chatType === "group"
        ? await this.callAction(target.selfId, "send_group_msg", { group_id: peer, message }, options)
        : await this.callAction(target.selfId, "send_private_msg", { user_id: peer, message }, options);
    // An implementation that answers `async` has no id yet; the message was still accepted.
    return { messageId: (isRecord(data) ? idToString(data.message_id) : undefined) ?? "" };
  }

  callAction(
    selfId: string,
    action: string,
    params: Record<string, unknown>,
    options?: ActionOptions,
  ): Promise<unknown> {
    const timeoutMs = options?.timeoutMs ?? this.#config.actionTimeoutMs;
    return this.#transport.callAction({ selfId, action, params, timeoutMs });
  }

  #connectionChanged(change: ConnectionChange): void {
    const status = this.#accounts.setConnected(change.selfId, change.accountConnected);
    this.#logger.info(
      { selfId: change.selfId, accountConnected: change.accountConnected, ...change.details },
      `onebot connection ${change.change}`,
    );
    try {
      this.#events.connection(status);
    } catch (error) {
      // Called from socket handlers: a throwing listener must not take the connection down.
      this.#logger.error({ err: error, selfId: change.selfId }, "onebot connection listener failed");
    }
  }
}

function createTransport(
  config: OneBotAdapterConfig,
  routes: HttpRoutes,
  sink: TransportSink,
  logger: Logger,
): OneBotTransport {
  // Config files write `${ONEBOT_TOKEN:-}`: an empty token means no token.
  const accessToken = config.accessToken || undefined;
  switch (config.mode) {
    case "reverse-ws":
      return new ReverseWsTransport({ path: config.path, accessToken, routes, sink, logger });
    case "forward-ws":
      return new ForwardWsTransport({
        url: config.url,
        accessToken,
        actionTimeoutMs: config.actionTimeoutMs,
        reconnect: config.reconnect,
        sink,
        logger,
      });
    case "http":
      return new HttpTransport({
        path: config.path,
        url: config.url,
        accessToken,
        secret: config.secret || undefined,
        actionTimeoutMs: config.actionTimeoutMs,
        routes,
        sink,
        logger,
      });
  }
}
