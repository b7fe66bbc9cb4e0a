import type { ChatAdapter } from "../adapters/types.ts";
import { stripLeadingMention } from "../chat/triggers.ts";
import type { CallContext, CallContexts, CallOptions, PluginSpeechSource } from "../components/types.ts";
import type { PictureFetcher } from "../media/types.ts";
import type { ChatMessage } from "../message/inbound.ts";
import { oneBotMessageFields } from "../message/onebot-wire.ts";
import { renderSegments } from "../message/render.ts";
import { makeSegment, type Segment } from "../message/segment.ts";
import type { Outbox, SessionOrigin } from "../reply/outbox.ts";
import { sendableSegments } from "../reply/reply-group.ts";
import type {
  BotApi,
  HistoryMessage,
  MemberInfo,
  Segment as OneBotSegment,
  OutgoingMessage,
  PluginEvent,
  PluginMemoryAccess,
  ReplySegment,
} from "../sdk/types.ts";
import type { MessageStore } from "../store/types.ts";
import { callPictures } from "./call-pictures.ts";

export interface CallContextDeps {
  outbox: Outbox;
  adapterById: (id: string) => ChatAdapter | undefined;
  messages: MessageStore;
  /** The bot's name and aliases, for taking a leading mention off `pure_text`. */
  names: () => string[];
  /** Rescans and reloads the plugins (the plugin host). */
  refreshTools: () => Promise<void>;
  /** The fetcher of a message's account (its `get_image`), for plugins fetching the message's pictures. */
  pictureFetcherFor: (message: ChatMessage) => PictureFetcher;
  /**
   * Long-term memory as the plugin `pluginId` may use it in a call for `message`, in the turn
   * `replyId` (src/memory/plugin-access.ts).
   */
  pluginMemory: (message: ChatMessage, pluginId: string, replyId: string | undefined) => PluginMemoryAccess;
  /** The host's text-to-speech for a call about `message` (agent/voice-speaking.ts). */
  pluginSpeech: PluginSpeechSource;
}

const DEFAULT_HISTORY = 20;

/** Builds what a component call gets (`bot`, `event`) for the message that caused it. */
export class CallContextFactory implements CallContexts {
  constructor(private readonly deps: CallContextDeps) {}

  forMessage(message: ChatMessage, options: CallOptions): CallContext {
    return {
      bot: this.botFor(message, options),
      event: this.eventOf(message),
      message,
      pictures: callPictures(message, this.deps.pictureFetcherFor(message), options.signal, options.pictures),
      memoryFor: (pluginId) => this.deps.pluginMemory(message, pluginId, options.replyId),
      speech: this.deps.pluginSpeech({
        message,
        signal: options.signal,
        ...(options.replyId === undefined ? {} : { replyId: options.replyId }),
      }),
      signal: options.signal,
      ...(options.replyId === undefined ? {} : { replyId: options.replyId }),
      ...(options.callId === undefined ? {} : { callId: options.callId }),
    };
  }

  eventOf(message: ChatMessage): PluginEvent {
    const text = renderSegments(stripLeadingMention(message.segments, message.selfId, this.deps.names()));
    return {
      platform: message.platform,
      adapter_id: message.adapterId,
      self_id: message.selfId,
      session_id: message.sessionId,
      ...oneBotMessageFields(message),
      pure_text: text.trim(),
      time: message.time,
    };
  }

  private botFor(message: ChatMessage, options: CallOptions): BotApi {
    const { outbox, messages } = this.deps;
    const adapter = () => {
      const found = this.deps.adapterById(message.adapterId);
      if (!found) throw new Error(`adapter ${message.adapterId} is not running`);
      return found;
    };
    const callAction = (action: string, params: Record<string, unknown> = {}) =>
      adapter().callAction(message.selfId, action, params);
    return {
      self_id: message.selfId,
      async send(event: PluginEvent, outgoing: OutgoingMessage) {
        const sent = await outbox.send(originOf(event), toSegments(outgoing), options.replyId);
        options.onSent?.(sent.messageId);
        return { message_id: sent.messageId };
      },
      callAction,
      async history(limit = DEFAULT_HISTORY) {
        return (await messages.recent({ sessionId: message.sessionId, limit })).map(toHistoryMessage);
      },
      async member(userId: string, groupId = message.groupId) {
        if (groupId === undefined) return undefined;
        try {
          const data = await callAction("get_group_member_info", { group_id: groupId, user_id: userId });
          return toMember(data);
        } catch {
          return undefined;
        }
      },
      refreshTools: () => this.deps.refreshTools(),
    };
  }
}

function originOf(event: PluginEvent): SessionOrigin {
  if (!event || typeof event.session_id !== "string" || typeof event.adapter_id !== "string") {
    throw new Error("bot.send needs the event the handler was called with");
  }
  return {
    platform: event.platform,
    adapterId: event.adapter_id,
    selfId: event.self_id,
    sessionId: event.session_id,
    chatType: event.message_type,
    groupId: event.group_id,
    userId: event.user_id,
  };
}

function toSegments(outgoing: OutgoingMessage): Segment[] {
  if (typeof outgoing === "string") return [makeSegment("text", { text: outgoing })];
  // One segment, as function-declaration plugins send `Image(…)`, is the list holding it.
  const list = isSegmentLike(outgoing) ? [outgoing] : outgoing;
  if (!Array.isArray(list) || list.length === 0) {
    throw new Error("bot.send needs a string, a segment or a non-empty list of segments");
  }
  try {
    return sendableSegments(list.map(asReplySegment));
  } catch (error) {
    throw new Error(`bot.send: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function isSegmentLike(value: unknown): value is ReplySegment | OneBotSegment {
  return typeof value === "object" && value !== null && !Array.isArray(value) && "type" in value;
}

/** A reply segment (its `data` is a string, or a `dict`'s segment), else a OneBot one wrapped in `dict`. */
function asReplySegment(segment: ReplySegment | OneBotSegment): ReplySegment {
  if (typeof segment.data === "string" || segment.type === "dict") return segment as ReplySegment;
  return { type: "dict", data: { type: segment.type, data: segment.data ?? {} } };
}

function toHistoryMessage(message: ChatMessage): HistoryMessage {
  return {
    message_id: message.messageId,
    user_id: message.userId,
    nickname: message.senderName,
    from_self: message.fromSelf,
    text: renderSegments(message.segments),
    message: message.segments,
    time: message.time,
  };
}

function toMember(data: unknown): MemberInfo | undefined {
  if (typeof data !== "object" || data === null) return undefined;
  const fields = data as Record<string, unknown>;
  return {
    ...fields,
    user_id: String(fields.user_id ?? ""),
    nickname: String(fields.nickname ?? ""),
    card: String(fields.card ?? ""),
    role: String(fields.role ?? "member"),
  };
}
