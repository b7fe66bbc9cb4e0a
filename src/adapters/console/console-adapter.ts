import type { ChatMessage } from "../../message/inbound.ts";
import { oneBotMessageFields } from "../../message/onebot-wire.ts";
import type { Segment } from "../../message/segment.ts";
import { formatSessionId } from "../../message/session-id.ts";
import type { AccountStatus, ChatAdapter, SendTarget } from "../types.ts";
import { inlineLocalMedia } from "./inline-media.ts";
import { RecentMessages } from "./recent-messages.ts";

export const CONSOLE_PLATFORM = "console";
export const CONSOLE_ADAPTER_ID = "console";
/** The bot's own user id in the playground; an `at` of it mentions the bot. */
export const CONSOLE_SELF_ID = "10000";

/** A message someone types in the playground. */
export interface ConsoleInput {
  chatType: "group" | "private";
  /** Group id for group chats; ignored for private chats (the peer is the sender). */
  groupId?: string;
  userId: string;
  senderName: string;
  segments: Segment[];
}

export interface ConsoleAdapterOptions {
  /** Where inbound messages go: the chat stage, as for any platform. */
  deliver: (message: ChatMessage) => void;
  botName: () => string;
}

export type ConsoleListener = (message: ChatMessage) => void;

/** A message typed in the playground as the pipeline takes it in, received now. */
export function consoleMessage(input: ConsoleInput, messageId: string): ChatMessage {
  const peerId = input.chatType === "group" ? input.groupId! : input.userId;
  const message: ChatMessage = {
    platform: CONSOLE_PLATFORM,
    adapterId: CONSOLE_ADAPTER_ID,
    selfId: CONSOLE_SELF_ID,
    sessionId: formatSessionId({
      platform: CONSOLE_PLATFORM,
      selfId: CONSOLE_SELF_ID,
      chatType: input.chatType,
      peerId,
    }),
    chatType: input.chatType,
    userId: input.userId,
    senderName: input.senderName,
    messageId,
    segments: input.segments,
    time: Date.now(),
    fromSelf: false,
  };
  if (input.chatType === "group") message.groupId = peerId;
  return message;
}

/**
 * The browser playground as a chat platform: messages typed in the console enter the same
 * pipeline as QQ messages, and what the bot sends to a `console` session is pushed to the
 * pages watching. `get_msg` answers like OneBot from the messages seen recently, so quoting
 * works as it does on QQ.
 */
export class ConsoleAdapter implements ChatAdapter {
  readonly id = CONSOLE_ADAPTER_ID;
  readonly platform = CONSOLE_PLATFORM;
  private readonly listeners = new Set<ConsoleListener>();
  private readonly recent = new RecentMessages();
  /** Message ids: increasing integers, seeded from the clock so they stay unique across restarts. */
  private nextMessageId = Date.now();

  constructor(private readonly options: ConsoleAdapterOptions) {}

  async start(): Promise<void> {}

  async stop(): Promise<void> {
    this.listeners.clear();
  }

  accounts(): AccountStatus[] {
    return [{ selfId: CONSOLE_SELF_ID, connected: true }];
  }

  /** Adds a page watching the playground; returns its disposer. */
  subscribe(listener: ConsoleListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Takes a message typed in the console into the pipeline; returns it as delivered. */
  receive(input: ConsoleInput): ChatMessage {
    const message = consoleMessage(input, this.newMessageId());
    this.publish(message);
    this.options.deliver(message);
    return message;
  }

  async send(target: SendTarget, segments: Segment[]): Promise<{ messageId: string }> {
    const message: ChatMessage = {
      platform: CONSOLE_PLATFORM,
      adapterId: CONSOLE_ADAPTER_ID,
      selfId: target.selfId,
      sessionId: formatSessionId({ platform: CONSOLE_PLATFORM, ...target }),
      chatType: target.chatType,
      userId: target.selfId,
      senderName: this.options.botName(),
      messageId: this.newMessageId(),
      // A real platform uploads local files; the page cannot read them, so they travel inline.
      segments: await inlineLocalMedia(segments),
      time: Date.now(),
      fromSelf: true,
    };
    if (target.chatType === "group") message.groupId = target.peerId;
    this.publish(message);
    return { messageId: message.messageId };
  }

  async callAction(_selfId: string, action: string, params: Record<string, unknown>): Promise<unknown> {
    if (action !== "get_msg") throw new Error(`the console does not support the action ${action}`);
    const message = this.recent.get(String(params.message_id));
    if (!message) throw new Error(`message ${String(params.message_id)} not found`);
    return {
      time: Math.floor(message.time / 1000),
      real_id: message.messageId,
      ...oneBotMessageFields(message),
    };
  }

  private publish(message: ChatMessage): void {
    this.recent.add(message);
    for (const listener of this.listeners) listener(message);
  }

  private newMessageId(): string {
    return String(this.nextMessageId++);
  }
}
