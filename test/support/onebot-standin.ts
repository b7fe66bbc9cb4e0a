/**
 * A fake OneBot v11 implementation (think NapCat) speaking the real wire protocol: it dials
 * reverse WebSockets, serves forward WebSockets and an HTTP API, pushes realistic events and
 * answers the actions the bot uses from an in-memory message store.
 *
 * Typical use:
 *   const standin = new OneBotStandIn({ selfId: "10000" });
 *   await standin.connectReverse(server.wsUrl("/onebot/v11/ws"));
 *   const id = standin.pushGroupMessage({ groupId: "20000", userId: "30000", message: "hi" });
 *   const sent = await standin.waitForSent((s) => s.groupId === "20000");
 *   await standin.close();
 */
import { createHmac } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { Duplex } from "node:stream";
import { WebSocket, WebSocketServer } from "ws";
import { sleep } from "./wait.ts";

export interface WireSegment {
  type: string;
  data: Record<string, unknown>;
}

export interface OneBotStandInOptions {
  selfId: string;
  nickname?: string;
  /** Required from the bot (forward WS, HTTP API) and presented to it (reverse WS). */
  accessToken?: string;
  /** How `message` is written in events and get_msg answers when given as segments. Default "array". */
  messageFormat?: "array" | "string";
  /** Push a heartbeat on every event socket at this interval; 0 or absent: only on `heartbeat()`. */
  heartbeatIntervalMs?: number;
  /**
   * Keep what passes (messages for get_msg, group members, `actions`, `sent`). Default true;
   * a load peer (bench/) pushing tens of thousands of messages turns it off and follows
   * answers with `onSent`, so keeping them costs neither memory nor collector time.
   */
  keepHistory?: boolean;
}

/** A group of the account, for `get_group_list`. */
export interface ListedGroup {
  groupId: string;
  name: string;
  memberCount: number;
}

export interface ReverseConnectOptions {
  /** Sent verbatim as X-Client-Role; default "Universal". Lagrange sends "Api". */
  role?: string;
  /** Extra headers; they override the defaults. */
  headers?: Record<string, string>;
  /** Overrides the stand-in's token for this connection; "" sends none. */
  accessToken?: string;
}

export interface StandInSocket {
  readonly kind: "reverse" | "forward";
  /** The X-Client-Role sent (reverse) or "Universal" (forward). */
  readonly role: string;
  readonly isOpen: boolean;
  /** Resolves with the close code and reason once the socket is closed (by either side). */
  readonly closed: Promise<{ code: number; reason: string }>;
  /** Bytes written but not yet sent: a flooding sender yields while it is high, as a real one would. */
  readonly bufferedAmount: number;
}

export interface ReceivedAction {
  action: string;
  params: Record<string, unknown>;
  echo: unknown;
  /** The socket the action came on, or "http". */
  via: StandInSocket | "http";
}

export interface SentMessage {
  action: "send_group_msg" | "send_private_msg";
  groupId?: string;
  userId?: string;
  /** `message` exactly as the bot sent it. */
  message: unknown;
  /** Text segments of the message joined, for easy assertions. */
  text: string;
  messageId: number;
}

export interface ActionFailure {
  retcode: number;
  message?: string;
  wording?: string;
}

export interface PushMessageInput {
  userId: string;
  nickname?: string;
  card?: string;
  /** Segments, or a CQ string sent as is (like an implementation set to string format). */
  message: WireSegment[] | string;
  /** Defaults to the next id of the stand-in's counter. */
  messageId?: number | string;
  /** Unix seconds; defaults to now. */
  time?: number;
}

export interface PushGroupMessageInput extends PushMessageInput {
  groupId: string;
  role?: "owner" | "admin" | "member";
}

export interface GroupMember {
  groupId: string;
  userId: string;
  nickname: string;
  card: string;
  role: "owner" | "admin" | "member";
}

export class UpgradeRejectedError extends Error {
  readonly status: number;

  constructor(status: number) {
    super(`the WebSocket upgrade was rejected with HTTP ${status}`);
    this.name = "UpgradeRejectedError";
    this.status = status;
  }
}

type ActionAnswer = { httpStatus: number; body: Record<string, unknown> };

interface Waiter<T> {
  matches(item: T): boolean;
  resolve(item: T): void;
}

class StandInConnection implements StandInSocket {
  readonly kind: "reverse" | "forward";
  readonly role: string;
  readonly ws: WebSocket;
  readonly closed: Promise<{ code: number; reason: string }>;

  constructor(kind: "reverse" | "forward", role: string, ws: WebSocket) {
    this.kind = kind;
    this.role = role;
    this.ws = ws;
    this.closed = new Promise((resolve) =>
      ws.once("close", (code, reason) => resolve({ code, reason: reason.toString() })),
    );
  }

  get isOpen(): boolean {
    return this.ws.readyState === WebSocket.OPEN;
  }

  get bufferedAmount(): number {
    return this.ws.bufferedAmount;
  }

  get receivesEvents(): boolean {
    return this.role.toLowerCase() !== "api";
  }
}

export class OneBotStandIn {
  readonly selfId: string;
  readonly nickname: string;
  /** Every send_group_msg / send_private_msg, oldest first. */
  readonly sent: SentMessage[] = [];
  /** Every action received, oldest first. */
  readonly actions: ReceivedAction[] = [];

  readonly #accessToken: string | undefined;
  /** What get_status answers; the last heartbeat() sets it. */
  #online = true;
  readonly #messageFormat: "array" | "string";
  readonly #keepHistory: boolean;
  readonly #connections = new Set<StandInConnection>();
  readonly #messages = new Map<string, Record<string, unknown>>();
  readonly #forwards = new Map<string, unknown>();
  readonly #images = new Map<string, unknown>();
  readonly #records = new Map<string, unknown>();
  readonly #members = new Map<string, GroupMember>();
  /** What `get_group_list` answers (setGroups). */
  #groups: ListedGroup[] = [];
  readonly #failures = new Map<string, ActionFailure[]>();
  readonly #delays = new Map<string, (params: Record<string, unknown>) => number>();
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #pendingPosts = new Set<Promise<unknown>>();
  #sentWaiters: Waiter<SentMessage>[] = [];
  readonly #sentListeners = new Set<(sent: SentMessage) => void>();
  #actionWaiters: Waiter<ReceivedAction>[] = [];
  #nextMessageId = 100_001;
  /** Reverse connections made so far, re-dialled by `restart()`. */
  readonly #reverseDials: { url: string; options: ReverseConnectOptions }[] = [];
  #forwardServer: { server: Server; port: number } | undefined;
  #httpServer: { server: Server; port: number } | undefined;
  #httpEventTarget: { url: string; secret?: string } | undefined;
  readonly #httpSockets = new Set<Socket>();

  constructor(options: OneBotStandInOptions) {
    this.selfId = options.selfId;
    this.nickname = options.nickname ?? "standin-bot";
    this.#accessToken = options.accessToken || undefined;
    this.#messageFormat = options.messageFormat ?? "array";
    this.#keepHistory = options.keepHistory ?? true;
    if (options.heartbeatIntervalMs) {
      const timer = setInterval(() => this.heartbeat(true), options.heartbeatIntervalMs);
      this.#timers.add(timer);
    }
  }

  // ── connections ────────────────────────────────────────────────────────────────────────

  /** Dials the bot's reverse WebSocket like NapCat does; resolves once open, rejects with UpgradeRejectedError. */
  async connectReverse(url: string, options: ReverseConnectOptions = {}): Promise<StandInSocket> {
    const connection = await this.#dialReverse(url, options);
    this.#reverseDials.push({ url, options });
    return connection;
  }

  /** Serves a forward WebSocket on 127.0.0.1 for the bot to dial; returns its `ws://` url. */
  async listenForward(port = 0): Promise<string> {
    const wss = new WebSocketServer({ noServer: true });
    const server = createServer((_request, response) => response.writeHead(426).end());
    server.on("connection", (socket) => this.#trackHttpSocket(socket));
    server.on("upgrade", (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      const status = this.#authStatus(request);
      if (status !== 200) {
        const reason = status === 401 ? "Unauthorized" : "Forbidden";
        socket.end(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
        return;
      }
      wss.handleUpgrade(request, socket, head, (ws) =>
        this.#adopt(new StandInConnection("forward", "Universal", ws)),
      );
    });
    this.#forwardServer = { server, port: await listen(server, port) };
    return `ws://127.0.0.1:${this.#forwardServer.port}`;
  }

  /**
   * Serves the HTTP API (`POST /:action`) on 127.0.0.1; returns its base url. With `eventUrl`,
   * pushed events are POSTed there (signed when `secret` is given), as HTTP POST mode does.
   */
  async listenHttp(options: { eventUrl?: string; secret?: string; port?: number } = {}): Promise<string> {
    if (options.eventUrl) this.#httpEventTarget = { url: options.eventUrl, secret: options.secret };
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", async () => {
        const status = this.#authStatus(request);
        if (status !== 200) {
          response.writeHead(status).end();
          return;
        }
        const action = new URL(request.url ?? "/", "http://localhost").pathname.slice(1);
        const params = parseJsonObject(Buffer.concat(chunks).toString("utf8"));
        const answer = await this.#handleAction({ action, params, echo: undefined, via: "http" });
        response.writeHead(answer.httpStatus, { "Content-Type": "application/json" });
        response.end(JSON.stringify(answer.body));
      });
    });
    server.on("connection", (socket) => this.#trackHttpSocket(socket));
    this.#httpServer = { server, port: await listen(server, options.port ?? 0) };
    return `http://127.0.0.1:${this.#httpServer.port}`;
  }

  /** POSTs one event (object or raw text) like HTTP POST mode; returns the HTTP status. */
  async postEvent(url: string, event: Record<string, unknown> | string, secret?: string): Promise<number> {
    const body = typeof event === "string" ? event : JSON.stringify(event);
    const headers: Record<string, string> = { "Content-Type": "application/json", "X-Self-ID": this.selfId };
    if (secret) headers["X-Signature"] = `sha1=${createHmac("sha1", secret).update(body).digest("hex")}`;
    const response = await fetch(url, { method: "POST", headers, body });
    await response.arrayBuffer();
    return response.status;
  }

  /** Open sockets, oldest first. */
  sockets(): StandInSocket[] {
    return [...this.#connections].filter((connection) => connection.isOpen);
  }

  /** Drops every socket without a close frame, as a crashed implementation would; servers keep listening. */
  disconnect(): void {
    for (const connection of this.#connections) connection.ws.terminate();
  }

  /**
   * Simulates an implementation restart: sockets dropped, servers closed, and after
   * `downtimeMs` servers listening again on the same ports and reverse connections re-dialled.
   */
  async restart(downtimeMs = 0): Promise<void> {
    this.disconnect();
    const forwardPort = this.#forwardServer?.port;
    const httpPort = this.#httpServer?.port;
    await this.#closeServers();
    await sleep(downtimeMs);
    if (forwardPort !== undefined) await this.listenForward(forwardPort);
    if (httpPort !== undefined) await this.listenHttp({ port: httpPort });
    for (const dial of this.#reverseDials) await this.#dialReverse(dial.url, dial.options);
  }

  /** Stops everything: sockets, servers, timers, event POSTs in flight. */
  async close(): Promise<void> {
    for (const timer of this.#timers) clearInterval(timer);
    this.#timers.clear();
    this.disconnect();
    await this.#closeServers();
    await Promise.allSettled([...this.#pendingPosts]);
  }

  // ── events ─────────────────────────────────────────────────────────────────────────────

  /** Pushes a group message event; returns its message id. */
  pushGroupMessage(input: PushGroupMessageInput): string {
    const member: GroupMember = {
      groupId: input.groupId,
      userId: input.userId,
      nickname: input.nickname ?? `user${input.userId}`,
      card: input.card ?? "",
      role: input.role ?? "member",
    };
    if (this.#keepHistory) this.setGroupMember(member);
    return this.#pushMessage(input, {
      message_type: "group",
      sub_type: "normal",
      group_id: jsonId(input.groupId),
      sender: {
        user_id: jsonId(member.userId),
        nickname: member.nickname,
        card: member.card,
        role: member.role,
      },
    });
  }

  /** Pushes a member joining a group (OneBot v11 event/notice.md, 群成员增加: `group_increase`). */
  pushGroupIncrease(input: { groupId: string; userId: string; operatorId?: string }): void {
    this.pushEvent({
      post_type: "notice",
      notice_type: "group_increase",
      sub_type: "approve",
      group_id: jsonId(input.groupId),
      user_id: jsonId(input.userId),
      operator_id: jsonId(input.operatorId ?? this.selfId),
    });
  }

  /** Pushes a request to join a group (OneBot v11 event/request.md, 加群请求: `request_type` group, `sub_type` add). */
  pushJoinRequest(input: { groupId: string; userId: string; comment: string; flag: string }): void {
    this.pushEvent({
      post_type: "request",
      request_type: "group",
      sub_type: "add",
      group_id: jsonId(input.groupId),
      user_id: jsonId(input.userId),
      comment: input.comment,
      flag: input.flag,
    });
  }

  /** Pushes a private (friend) message event; returns its message id. */
  pushPrivateMessage(input: PushMessageInput): string {
    return this.#pushMessage(input, {
      message_type: "private",
      sub_type: "friend",
      sender: { user_id: jsonId(input.userId), nickname: input.nickname ?? `user${input.userId}` },
    });
  }

  /** Pushes any event; `self_id` and `time` are filled in when missing. */
  pushEvent(event: Record<string, unknown>): void {
    this.#deliver(JSON.stringify({ time: nowSeconds(), self_id: jsonId(this.selfId), ...event }));
  }

  /** Sends text as is on every event socket (malformed frames, hand-written JSON with big numbers). */
  pushRaw(text: string): void {
    this.#deliver(text);
  }

  /** Pushes a heartbeat meta event carrying `status.online`. */
  heartbeat(online = true): void {
    this.#online = online;
    this.pushEvent({
      post_type: "meta_event",
      meta_event_type: "heartbeat",
      status: { online, good: online },
      interval: 30_000,
    });
  }

  // ── action behaviour ───────────────────────────────────────────────────────────────────

  /** The next call of `action` fails with this retcode (queued: call again for more failures). */
  failNext(action: string, failure: ActionFailure): void {
    const queue = this.#failures.get(action) ?? [];
    queue.push(failure);
    this.#failures.set(action, queue);
  }

  /** Answers of `action` are delayed by `ms` (or by what the function returns for the params); 0 clears. */
  delay(action: string, ms: number | ((params: Record<string, unknown>) => number)): void {
    if (ms === 0) this.#delays.delete(action);
    else this.#delays.set(action, typeof ms === "number" ? () => ms : ms);
  }

  /** What `get_msg` answers for the message id of this event (a frame pushed with `pushRaw`). */
  rememberMessage(event: Record<string, unknown>): void {
    this.#messages.set(String(event.message_id), event);
  }

  /** What `get_forward_msg` answers for this id (any of the shapes implementations use). */
  setForward(id: string, data: unknown): void {
    this.#forwards.set(id, data);
  }

  /**
   * What `get_image` answers for this file id, e.g. `{ file: "/tmp/x.png", url, file_size, file_name }`
   * as NapCat and Lagrange do.
   */
  setImage(fileId: string, data: unknown): void {
    this.#images.set(fileId, data);
  }

  /** The groups the account is in, as `get_group_list` answers them. */
  setGroups(groups: ListedGroup[]): void {
    this.#groups = [...groups];
  }

  /** What `get_record` answers for this file id, e.g. `{ file, url, base64 }` as NapCat does with `out_format`. */
  setRecord(fileId: string, data: unknown): void {
    this.#records.set(fileId, data);
  }

  setGroupMember(member: GroupMember): GroupMember {
    this.#members.set(`${member.groupId}:${member.userId}`, member);
    return member;
  }

  /** Resolves with the first sent message (already sent or future) matching the predicate. */
  waitForSent(
    predicate: (sent: SentMessage) => boolean = () => true,
    timeoutMs = 2_000,
  ): Promise<SentMessage> {
    return this.#waitFor(this.sent, this.#sentWaiters, predicate, timeoutMs, "sent message");
  }

  /**
   * Calls `listener` with every message sent from now on; returns its disposer. For a peer
   * timing thousands of answers (bench/), where `waitForSent`'s look at the history would cost.
   */
  onSent(listener: (sent: SentMessage) => void): () => void {
    this.#sentListeners.add(listener);
    return () => this.#sentListeners.delete(listener);
  }

  /** Resolves with the first received action (already received or future) matching. */
  waitForAction(
    match: string | ((action: ReceivedAction) => boolean),
    timeoutMs = 2_000,
  ): Promise<ReceivedAction> {
    const predicate =
      typeof match === "string" ? (received: ReceivedAction) => received.action === match : match;
    return this.#waitFor(this.actions, this.#actionWaiters, predicate, timeoutMs, "action");
  }

  // ── internals ──────────────────────────────────────────────────────────────────────────

  #dialReverse(url: string, options: ReverseConnectOptions): Promise<StandInConnection> {
    const token = options.accessToken ?? this.#accessToken;
    const role = options.role ?? "Universal";
    const ws = new WebSocket(url, {
      headers: {
        "X-Self-ID": this.selfId,
        "X-Client-Role": role,
        "User-Agent": "OneBot/11",
        ...(token ? { Authorization: `Bearer ${token}` } : {}),
        ...options.headers,
      },
    });
    return new Promise((resolve, reject) => {
      ws.once("unexpected-response", (request, response) => {
        request.destroy();
        reject(new UpgradeRejectedError(response.statusCode ?? 0));
      });
      ws.on("error", reject);
      ws.once("open", () => {
        const connection = new StandInConnection("reverse", role, ws);
        this.#adopt(connection);
        resolve(connection);
      });
    });
  }

  #adopt(connection: StandInConnection): void {
    this.#connections.add(connection);
    // Errors end in a close, which is all the stand-in needs to know.
    connection.ws.on("error", () => {});
    connection.ws.on("message", (data) => this.#receiveFrame(connection, data.toString()));
    void connection.closed.then(() => this.#connections.delete(connection));
    // NapCat announces every new connection with a lifecycle event.
    if (connection.receivesEvents) {
      connection.ws.send(
        JSON.stringify({
          time: nowSeconds(),
          self_id: jsonId(this.selfId),
          post_type: "meta_event",
          meta_event_type: "lifecycle",
          sub_type: "connect",
        }),
      );
    }
  }

  async #receiveFrame(connection: StandInConnection, text: string): Promise<void> {
    const frame = parseJsonObject(text) as { action?: unknown; params?: unknown; echo?: unknown };
    if (typeof frame.action !== "string") return;
    const params = (frame.params ?? {}) as Record<string, unknown>;
    const answer = await this.#handleAction({
      action: frame.action,
      params,
      echo: frame.echo,
      via: connection,
    });
    if (connection.isOpen) connection.ws.send(JSON.stringify({ ...answer.body, echo: frame.echo }));
  }

  async #handleAction(received: ReceivedAction): Promise<ActionAnswer> {
    if (this.#keepHistory) this.actions.push(received);
    this.#actionWaiters = notify(this.#actionWaiters, received);
    const delayMs = this.#delays.get(received.action)?.(received.params) ?? 0;
    if (delayMs > 0) await this.#sleepTracked(delayMs);
    const failure = this.#failures.get(received.action)?.shift();
    if (failure) return failed(failure.retcode, failure.message ?? "standin failure", failure.wording);
    return this.#answer(received.action, received.params);
  }

  #answer(action: string, params: Record<string, unknown>): ActionAnswer {
    switch (action) {
      case "get_login_info":
        return ok({ user_id: jsonId(this.selfId), nickname: this.nickname });
      case "get_status":
        return ok({ online: this.#online, good: this.#online });
      case "get_msg": {
        const stored = this.#messages.get(String(params.message_id));
        return stored ? ok(stored) : failed(1200, "消息不存在");
      }
      case "get_forward_msg": {
        const id = String(params.id ?? params.message_id);
        return this.#forwards.has(id) ? ok(this.#forwards.get(id)) : failed(1200, "转发消息不存在");
      }
      case "get_image": {
        const fileId = String(params.file ?? params.file_id);
        return this.#images.has(fileId) ? ok(this.#images.get(fileId)) : failed(1200, "图片不存在");
      }
      case "get_group_list":
        return ok(
          this.#groups.map((group) => ({
            group_id: jsonId(group.groupId),
            group_name: group.name,
            member_count: group.memberCount,
            max_member_count: 500,
          })),
        );
      case "get_record": {
        const fileId = String(params.file ?? params.file_id);
        return this.#records.has(fileId) ? ok(this.#records.get(fileId)) : failed(1200, "语音不存在");
      }
      // The member shape of OneBot v11 api/public.md (get_group_member_info, 获取群成员信息), which
      // NapCat answers (napneko.github.io → 接口 → get_group_member_info), `role` owner | admin | member.
      case "get_group_member_info": {
        const member = this.#members.get(`${params.group_id}:${params.user_id}`);
        if (!member) return failed(1200, "群成员不存在");
        return ok({
          group_id: jsonId(member.groupId),
          user_id: jsonId(member.userId),
          nickname: member.nickname,
          card: member.card,
          sex: "unknown",
          age: 0,
          area: "",
          join_time: nowSeconds() - 86_400,
          last_sent_time: nowSeconds(),
          level: "1",
          role: member.role,
          unfriendly: false,
          title: "",
          title_expire_time: 0,
          card_changeable: true,
        });
      }
      // Group management (OneBot v11 api/public.md: set_group_ban, set_group_kick,
      // set_group_add_request; NapCat's set_essence_msg and _send_group_notice): no data.
      // The account must be the group's owner or an admin, as QQ requires.
      case "set_group_ban":
      case "set_group_kick":
      case "_send_group_notice": {
        const self = this.#members.get(`${params.group_id}:${this.selfId}`);
        return self?.role === "owner" || self?.role === "admin" ? ok(null) : failed(200, "权限不足");
      }
      case "set_essence_msg":
      case "set_group_add_request":
        return ok(null);
      case "send_group_msg":
      case "send_private_msg":
        return ok({ message_id: this.#recordSent(action, params) });
      // NapCat's poke actions (action/packet/SendPoke.ts) answer no data.
      case "group_poke":
      case "friend_poke":
      case "send_poke":
        return ok(null);
      default:
        return { ...failed(1404, "API不存在"), httpStatus: 404 };
    }
  }

  #recordSent(action: "send_group_msg" | "send_private_msg", params: Record<string, unknown>): number {
    const messageId = this.#nextMessageId++;
    const sent: SentMessage = { action, message: params.message, text: plainText(params.message), messageId };
    if (action === "send_group_msg") sent.groupId = String(params.group_id);
    else sent.userId = String(params.user_id);
    if (this.#keepHistory) {
      this.#messages.set(String(messageId), {
        time: nowSeconds(),
        message_type: action === "send_group_msg" ? "group" : "private",
        message_id: messageId,
        real_id: messageId,
        user_id: jsonId(this.selfId),
        ...(sent.groupId ? { group_id: jsonId(sent.groupId) } : {}),
        sender: { user_id: jsonId(this.selfId), nickname: this.nickname, card: "" },
        message: params.message,
        raw_message: typeof params.message === "string" ? params.message : encodeCq(params.message),
      });
      this.sent.push(sent);
    }
    this.#sentWaiters = notify(this.#sentWaiters, sent);
    for (const listener of this.#sentListeners) listener(sent);
    return messageId;
  }

  #pushMessage(input: PushMessageInput, fields: Record<string, unknown>): string {
    const messageId = input.messageId ?? this.#nextMessageId++;
    const cq = typeof input.message === "string" ? input.message : encodeCq(input.message);
    const message =
      typeof input.message === "string" || this.#messageFormat === "string" ? cq : input.message;
    const event = {
      time: input.time ?? nowSeconds(),
      self_id: jsonId(this.selfId),
      post_type: "message",
      ...fields,
      message_id: messageId,
      real_id: messageId,
      user_id: jsonId(input.userId),
      message,
      raw_message: cq,
      font: 0,
      message_format: typeof message === "string" ? "string" : "array",
    };
    if (this.#keepHistory) this.#messages.set(String(messageId), event);
    this.#deliver(JSON.stringify(event));
    return String(messageId);
  }

  #deliver(text: string): void {
    for (const connection of this.#connections) {
      if (connection.isOpen && connection.receivesEvents) connection.ws.send(text);
    }
    const target = this.#httpEventTarget;
    if (target && this.#httpServer) {
      const post = this.postEvent(target.url, text, target.secret).catch(() => undefined);
      this.#pendingPosts.add(post);
      void post.finally(() => this.#pendingPosts.delete(post));
    }
  }

  #authStatus(request: IncomingMessage): number {
    if (!this.#accessToken) return 200;
    const header = request.headers.authorization;
    const query = new URL(request.url ?? "/", "http://localhost").searchParams.get("access_token");
    const token = header?.replace(/^Bearer\s+/i, "") ?? query;
    if (!token) return 401;
    return token === this.#accessToken ? 200 : 403;
  }

  #trackHttpSocket(socket: Socket): void {
    this.#httpSockets.add(socket);
    socket.once("close", () => this.#httpSockets.delete(socket));
  }

  async #closeServers(): Promise<void> {
    for (const socket of this.#httpSockets) socket.destroy();
    const servers = [this.#forwardServer?.server, this.#httpServer?.server].filter((s) => s !== undefined);
    this.#forwardServer = undefined;
    this.#httpServer = undefined;
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  }

  #sleepTracked(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#timers.delete(timer);
        resolve();
      }, ms);
      this.#timers.add(timer);
    });
  }

  #waitFor<T>(
    seen: T[],
    waiters: Waiter<T>[],
    predicate: (item: T) => boolean,
    timeoutMs: number,
    what: string,
  ): Promise<T> {
    const already = seen.find(predicate);
    if (already) return Promise.resolve(already);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const index = waiters.indexOf(waiter);
        if (index >= 0) waiters.splice(index, 1);
        reject(
          new Error(
            `no matching ${what} within ${timeoutMs} ms (seen: ${JSON.stringify(seen).slice(0, 500)})`,
          ),
        );
      }, timeoutMs);
      const waiter: Waiter<T> = {
        matches: predicate,
        resolve: (item) => {
          clearTimeout(timer);
          resolve(item);
        },
      };
      waiters.push(waiter);
    });
  }
}

/** Resolves the waiters the item matches; returns those still waiting. */
function notify<T>(waiters: Waiter<T>[], item: T): Waiter<T>[] {
  const remaining: Waiter<T>[] = [];
  for (const waiter of waiters) {
    if (waiter.matches(item)) waiter.resolve(item);
    else remaining.push(waiter);
  }
  return remaining;
}

/** Like an implementation, treats an unparsable body as empty parameters. */
function parseJsonObject(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function ok(data: unknown): ActionAnswer {
  return { httpStatus: 200, body: { status: "ok", retcode: 0, data, message: "", wording: "" } };
}

function failed(retcode: number, message: string, wording = message): ActionAnswer {
  return { httpStatus: 200, body: { status: "failed", retcode, data: null, message, wording } };
}

/** Ids go on the wire as numbers, as NapCat sends them, when that is exact. */
export function jsonId(id: string): number | string {
  const asNumber = Number(id);
  return Number.isSafeInteger(asNumber) && String(asNumber) === id ? asNumber : id;
}

/**
 * CQ encoding as implementations do it; written here rather than imported so the stand-in
 * stays an independent check of the bot's decoder.
 */
function encodeCq(message: unknown): string {
  if (!Array.isArray(message)) return "";
  return (message as WireSegment[])
    .map((segment) => {
      if (segment.type === "text") return escapeCq(String(segment.data.text ?? ""), false);
      const params = Object.entries(segment.data)
        .filter(([, value]) => value !== undefined && typeof value !== "object")
        .map(([key, value]) => `,${key}=${escapeCq(String(value), true)}`)
        .join("");
      return `[CQ:${segment.type}${params}]`;
    })
    .join("");
}

function escapeCq(text: string, inParameter: boolean): string {
  const escaped = text.replace(/&/g, "&amp;").replace(/\[/g, "&#91;").replace(/\]/g, "&#93;");
  return inParameter ? escaped.replace(/,/g, "&#44;") : escaped;
}

function plainText(message: unknown): string {
  if (typeof message === "string") {
    return message
      .replace(/\[CQ:[^\]]*\]/g, "")
      .replace(/&#91;/g, "[")
      .replace(/&#93;/g, "]")
      .replace(/&amp;/g, "&");
  }
  if (!Array.isArray(message)) return "";
  return (message as WireSegment[])
    .filter((segment) => segment.type === "text")
    .map((segment) => String(segment.data.text ?? ""))
    .join("");
}

function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

async function listen(server: Server, port: number): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  return (server.address() as AddressInfo).port;
}
