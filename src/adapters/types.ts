import type { ChatMessage } from "../message/inbound.ts";
import type { Segment } from "../message/segment.ts";
import type { ChatType } from "../message/session-id.ts";

/** Where an outgoing message goes. */
export interface SendTarget {
  selfId: string;
  chatType: ChatType;
  /** Group id for group chats, user id for private chats. */
  peerId: string;
  /** The session the message belongs to (stdio channels address their chats by it). */
  sessionId?: string;
}

export interface AccountStatus {
  selfId: string;
  connected: boolean;
  online?: boolean;
  /** Unix ms until which the platform refuses this account's sends for their rate (QQ's official API). */
  rateLimitedUntil?: number;
}

export interface ActionOptions {
  timeoutMs?: number;
}

/**
 * Whether an adapter's error says the message certainly never left (no connection at that
 * moment), so sending it again once the account is back cannot make a duplicate.
 */
export function wasNotSent(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { notSent?: unknown }).notSent === true;
}

/**
 * Whether the platform answered that it did not carry the action out (OneBot `status` "failed",
 * a retcode other than 0): a send so answered did not go out, and sending it again would be
 * refused the same way.
 */
export function wasRefused(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { refused?: unknown }).refused === true;
}

/** What the rest of the bot needs from a chat platform connection. */
export interface ChatAdapter {
  readonly id: string;
  readonly platform: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  accounts(): AccountStatus[];
  /** Sends one message; resolves with the platform's message id. */
  send(target: SendTarget, segments: Segment[], options?: ActionOptions): Promise<{ messageId: string }>;
  /** Calls a raw platform action (OneBot: `get_msg`, `get_forward_msg`, …) and returns its `data`. */
  callAction(
    selfId: string,
    action: string,
    params: Record<string, unknown>,
    options?: ActionOptions,
  ): Promise<unknown>;
}

/** Callbacks an adapter reports to; the composition root wires them to the chat stage. */
export interface AdapterEvents {
  message(message: ChatMessage): void;
  /** A connection for `selfId` opened or closed. */
  connection(status: AccountStatus): void;
  /** A message was deleted on the platform (recalled by its sender or an admin). */
  deleted?(message: { sessionId: string; messageId: string }): void;
  /** A member started or stopped typing in a chat (NapCat's `input_status` notice). */
  typing?(status: TypingStatus): void;
}

export interface TypingStatus {
  sessionId: string;
  userId: string;
  typing: boolean;
}
