/** Shapes shared by quote resolution, its budgets and its renderer. */

/** One message of an expanded merged forward. */
export interface ForwardNode {
  senderId?: string;
  senderName?: string;
  /** Unix time in milliseconds. */
  time?: number;
  text: string;
  /** 0 for a message of a forward the quote carries directly, +1 per nesting level. */
  depth: number;
}

/** The quoted message and the expanded forwards, ready to render. */
export interface ResolvedQuote {
  senderId?: string;
  senderName?: string;
  /** Unix time in milliseconds. */
  time?: number;
  /** The quoted message's text; empty when the batch carried only forwards. */
  text: string;
  nodes: ForwardNode[];
  /** Something was left out (a budget ran out); the renderer says so. */
  truncated: boolean;
}

/** The two platform calls resolution makes; both resolve with the action's raw `data`. */
export interface QuoteFetcher {
  getMessage(messageId: string, timeoutMs: number): Promise<unknown>;
  getForward(forwardId: string, timeoutMs: number): Promise<unknown>;
}

/** What a call that failed (timeout, error answer, recalled message) renders as. */
export const FETCH_FAILED_TEXT = "[引用消息获取失败]";
