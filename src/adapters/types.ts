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
  /** Keeping groups in order (src/manage/), where the platform allows it; absent: it cannot. */
  readonly groups?: GroupActions;
}

/** A member's standing in a group, as the platform reports it. */
export type GroupRole = "owner" | "admin" | "member";

export interface GroupMember {
  role: GroupRole;
  /** Their card (群名片) in the group, else their nickname. */
  name: string;
}

/**
 * What a platform lets the bot do to keep a group in order: each method is there only where
 * the adapter can do it (its declaration of capabilities), so only those tools are offered.
 * Every call rejects when the platform refused or did not answer.
 */
export interface GroupActions {
  /** The member's role and name in the group; undefined when they are not in it. */
  member?(selfId: string, groupId: string, userId: string): Promise<GroupMember | undefined>;
  /** Mutes the member for `seconds` (0 lifts a mute). */
  mute?(selfId: string, groupId: string, userId: string, seconds: number): Promise<void>;
  kick?(selfId: string, groupId: string, userId: string): Promise<void>;
  /** Sets one of the group's messages as essence (精华消息). */
  setEssence?(selfId: string, messageId: string): Promise<void>;
  /** Posts a group notice (群公告). */
  postNotice?(selfId: string, groupId: string, text: string): Promise<void>;
  /** Answers a join request by the `flag` it came with. */
  answerJoinRequest?(selfId: string, flag: string, approve: boolean, reason?: string): Promise<void>;
}

/** Someone joined a group the bot is in (OneBot `group_increase`). */
export interface MemberJoined {
  adapterId: string;
  selfId: string;
  groupId: string;
  userId: string;
}

/** Someone asked to join a group the bot is in (OneBot `request` of type `group`, `add`). */
export interface JoinRequest {
  adapterId: string;
  selfId: string;
  groupId: string;
  userId: string;
  /** What they wrote when asking (the answer to the group's question), as the platform gives it. */
  comment: string;
  /** The platform's handle for answering the request. */
  flag: string;
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
  /** A member joined a group (src/manage/ welcomes them). */
  memberJoined?(event: MemberJoined): void;
  /** Someone asked to join a group (src/manage/ handles it per `chat.joinRequests`). */
  joinRequest?(request: JoinRequest): void;
}

export interface TypingStatus {
  sessionId: string;
  userId: string;
  typing: boolean;
}
