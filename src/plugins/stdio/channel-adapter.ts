import type { AccountStatus, ChatAdapter, SendTarget } from "../../adapters/types.ts";
import type { Disposer } from "../../components/types.ts";
import type { ChatMessage } from "../../message/inbound.ts";
import { STDIO_PLATFORM } from "../../message/message-source.ts";
import type { Segment } from "../../message/segment.ts";
import { inboundMessage, parseChannelSession, STDIO_ADAPTER_ID } from "./channel-session.ts";
import type { ChannelInbound } from "./protocol.ts";

/** A stdio plugin's side of its channel. */
export interface StdioChannel {
  /** `channel_provider.name`, else the plugin id: what hooks see as `channel`. */
  readonly name: string;
  /** `channel_send`; resolves with the plugin's message id when it gave one. */
  send(chatId: string, segments: Segment[]): Promise<string | undefined>;
}

/** What the stdio runtime needs from the channel adapter. */
export interface StdioChannels {
  attach(pluginId: string, channel: StdioChannel): Disposer;
  receive(pluginId: string, inbound: ChannelInbound): ChatMessage;
  nameOf(pluginId: string): string | undefined;
}

/**
 * Every stdio channel plugin as one chat platform: `channel_inbound` pushes enter the normal
 * chat pipeline as sessions `stdio:<pluginId>:<chatId>`, and what the bot sends to such a
 * session goes back to that plugin as a `channel_send` request.
 */
export class StdioChannelAdapter implements ChatAdapter, StdioChannels {
  readonly id = STDIO_ADAPTER_ID;
  readonly platform = STDIO_PLATFORM;
  private readonly channels = new Map<string, StdioChannel>();
  /** Message ids: increasing integers, seeded from the clock so they stay unique across restarts. */
  private nextMessageId = Date.now();

  /** `deliver`: where local chats enter the message path (at its store stage). */
  constructor(private readonly deliver: (message: ChatMessage) => void) {}

  async start(): Promise<void> {}

  async stop(): Promise<void> {}

  accounts(): AccountStatus[] {
    return [...this.channels.keys()].map((pluginId) => ({ selfId: pluginId, connected: true }));
  }

  attach(pluginId: string, channel: StdioChannel): Disposer {
    this.channels.set(pluginId, channel);
    return () => {
      if (this.channels.get(pluginId) === channel) this.channels.delete(pluginId);
    };
  }

  nameOf(pluginId: string): string | undefined {
    return this.channels.get(pluginId)?.name;
  }

  receive(pluginId: string, inbound: ChannelInbound): ChatMessage {
    const message = inboundMessage(pluginId, inbound, this.newMessageId());
    this.deliver(message);
    return message;
  }

  async send(target: SendTarget, segments: Segment[]): Promise<{ messageId: string }> {
    const session = target.sessionId === undefined ? undefined : parseChannelSession(target.sessionId);
    if (!session) throw new Error(`${target.sessionId ?? "(no session)"} is not a stdio channel session`);
    const channel = this.channels.get(session.pluginId);
    if (!channel) throw new Error(`the channel plugin ${session.pluginId} is not running`);
    const messageId = await channel.send(session.chatId, segments);
    return { messageId: messageId ?? this.newMessageId() };
  }

  async callAction(_selfId: string, action: string): Promise<unknown> {
    throw new Error(`stdio channels support no platform actions (${action})`);
  }

  private newMessageId(): string {
    return String(this.nextMessageId++);
  }
}
