/** What a connection mode (reverse WS, forward WS, HTTP) reports to the adapter. */
export interface ConnectionChange {
  selfId: string;
  change: "opened" | "closed";
  /** Whether the account still has a usable connection after this change. */
  accountConnected: boolean;
  /** Mode-specific facts for the log line (role, remote address, close code, reason). */
  details: Record<string, unknown>;
}

export interface TransportSink {
  /** A frame with `post_type`; `connectionSelfId` is the account the connection belongs to, when known. */
  event(event: Record<string, unknown>, connectionSelfId: string | undefined): void;
  connection(change: ConnectionChange): void;
}

/** One OneBot action for the account `selfId`, answered within `timeoutMs`. */
export interface ActionCall {
  selfId: string;
  action: string;
  params: Record<string, unknown>;
  timeoutMs: number;
}

/** One OneBot connection mode. */
export interface OneBotTransport {
  start(): Promise<void>;
  stop(): Promise<void>;
  callAction(call: ActionCall): Promise<unknown>;
}
