import type { Segment } from "./segment.ts";
import type { ChatType } from "./session-id.ts";

/** A poke (戳一戳) reported as a notice: who (the message's sender) poked whom. */
export interface PokeNotice {
  type: "poke";
  targetId: string;
}

/** One chat message as every stage after the adapter sees it. */
export interface ChatMessage {
  platform: string;
  /** Adapter instance id from the config (`adapters[].id`). */
  adapterId: string;
  selfId: string;
  sessionId: string;
  chatType: ChatType;
  groupId?: string;
  /** Sender's platform user id (the bot's own id for messages it sent). */
  userId: string;
  senderName: string;
  /** Platform message id, opaque string. */
  messageId: string;
  segments: Segment[];
  /** Unix time in milliseconds. */
  time: number;
  /** True for messages the bot itself sent, from this account or another account it runs. */
  fromSelf: boolean;
  /**
   * When the platform said the message was recalled (撤回, Unix ms): it stays stored and the
   * console shows it, but models never read its content again.
   */
  recalledAt?: number;
  /**
   * The sender's role in the group as the platform's event said it (OneBot `sender.role`);
   * absent where the platform does not say (then src/manage/ asks the platform).
   */
  senderRole?: "owner" | "admin" | "member";
  /** Set for a notice the chat shows like a message (a poke); its `segments` are empty. */
  notice?: PokeNotice;
}
