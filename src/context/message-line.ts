import type { ChatMessage } from "../message/inbound.ts";
import type { PictureTexts } from "../message/picture-text.ts";
import { renderSegments } from "../message/render.ts";
import type { Segment } from "../message/segment.ts";
import type { ClockText } from "./clock-text.ts";

/** One message as a line of the transcript the model reads: `[10:00:05] 张三(10001): text`. */
export function formatMessageLine(
  message: ChatMessage,
  clock: ClockText,
  options: { withId?: boolean; segments?: Segment[]; selfName?: string; pictures?: PictureTexts } = {},
): string {
  const who = message.fromSelf ? `${message.senderName}(你)` : `${message.senderName}(${message.userId})`;
  const id = options.withId ? `[msg_id=${message.messageId}] ` : "";
  const selfName = options.selfName;
  const nameOf = (userId: string) => (userId === message.selfId ? selfName : undefined);
  const text = renderSegments(options.segments ?? message.segments, { nameOf, pictures: options.pictures });
  return `${id}[${clock(message.time)}] ${who}: ${text}`;
}
