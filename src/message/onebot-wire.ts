/** The Segment model as OneBot v11 expects it in a send action's `message` array. */

import type { ChatMessage } from "./inbound.ts";
import { isKnownSegment, type Segment } from "./segment.ts";

export interface OneBotSegment {
  type: string;
  data: Record<string, unknown>;
}

/**
 * Ids stay strings: every implementation we target accepts them, and numbers would lose the
 * digits of ids beyond 2^53. Unknown segments go out exactly as they came in.
 */
export function toOneBotSegments(segments: Segment[]): OneBotSegment[] {
  return segments.map(toOneBotSegment);
}

function toOneBotSegment(segment: Segment): OneBotSegment {
  if (isKnownSegment(segment) && segment.type === "node" && segment.data.content !== undefined) {
    return { type: "node", data: { ...segment.data, content: toOneBotSegments(segment.data.content) } };
  }
  return { type: segment.type, data: segment.data };
}

/** Who sent what where, in the OneBot field names `get_msg` answers and plugin events carry. */
export function oneBotMessageFields(message: ChatMessage) {
  return {
    message_type: message.chatType,
    message_id: message.messageId,
    user_id: message.userId,
    ...(message.groupId === undefined ? {} : { group_id: message.groupId }),
    sender: { user_id: message.userId, nickname: message.senderName },
    message: message.segments,
  };
}
