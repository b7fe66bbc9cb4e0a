export type OneBotMode = "reverse-ws" | "forward-ws" | "http";

export interface ReconnectConfig {
  minDelayMs: number;
  maxDelayMs: number;
}

/** One `adapters[]` entry of type `onebot`, with defaults already applied by the config loader. */
export interface OneBotAdapterConfig {
  id: string;
  mode: OneBotMode;
  /** reverse-ws: the WebSocket path we serve; http: the path OneBot POSTs events to. */
  path: string;
  /** forward-ws: the implementation's WebSocket url; http: its HTTP API base url. */
  url: string;
  /** Empty or absent means no token is required or sent. */
  accessToken?: string;
  /** http: HMAC-SHA1 secret the implementation signs event bodies with; empty or absent means unsigned. */
  secret?: string;
  actionTimeoutMs: number;
  reconnect: ReconnectConfig;
}
