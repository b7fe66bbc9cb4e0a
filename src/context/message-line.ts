import type { ChatMessage, PokeNotice } from "../message/inbound.ts";
import type { PictureTexts } from "../message/picture-text.ts";
import { renderSegments } from "../message/render.ts";
import type { Segment } from "../message/segment.ts";
import type { ClockText } from "./clock-text.ts";

/**
 * Starts each further line of a message: only a message's own first line (its header) starts
 * at column 0, so a line break in a member's text cannot start a line that reads as another
 * message.
 */
export const CONTINUATION_INDENT = "  ";

/** Every character a model may read as the end of a line. */
const LINE_BREAK = /\r\n|[\n\r\v\f\u0085\u2028\u2029]/g;

/** The opening `[` of what looks like a header's `[msg_id=…]` or `[10:00:05]` label. */
const HEADER_LABEL = /\[(?=\s*msg_id\s*=|\s*\d{1,2}\s*:\s*\d{2})/gi;

/** What a header writes around a name (`[10:00:05] name(id): `), full-width inside a name. */
const NAME_MARKS: Record<string, string> = { "(": "（", ")": "）", "[": "［", "]": "］", ":": "：" };

/** What models read instead of a recalled (撤回) message's content, wherever it appears. */
export const RECALLED_TEXT = "[已撤回]";

/** One message as a line of the transcript the model reads: `[10:00:05] 张三(10001): text`. */
export function formatMessageLine(
  message: ChatMessage,
  clock: ClockText,
  options: {
    withId?: boolean;
    segments?: Segment[];
    /** Names of other members for mentions that carry none (the bot's own mention reads `@你`). */
    nameOf?: (userId: string) => string | undefined;
    pictures?: PictureTexts;
  } = {},
): string {
  const who = message.fromSelf
    ? `${senderText(message.senderName)}(你)`
    : `${senderText(message.senderName)}(${message.userId})`;
  const id = options.withId ? `[msg_id=${message.messageId}] ` : "";
  if (message.notice !== undefined) {
    return `${id}[${clock(message.time)}] ${who} ${noticeText(message.notice, message.selfId)}`;
  }
  const text =
    message.recalledAt === undefined
      ? renderSegments(options.segments ?? message.segments, {
          nameOf: options.nameOf,
          selfId: message.selfId,
          pictures: options.pictures,
        })
      : RECALLED_TEXT;
  return `${id}[${clock(message.time)}] ${who}: ${messageText(text)}`;
}

/** A notice shown like a message, after its sender: "戳了戳你" (the bot) or "戳了戳 10002". */
export function noticeText(notice: PokeNotice, selfId: string): string {
  return notice.targetId === selfId ? "戳了戳你" : `戳了戳 ${notice.targetId}`;
}

/**
 * A message's text as it goes into a transcript: each further line indented by `indent`, and
 * what looks like a header label (`[msg_id=`, `[10:00`) given a full-width bracket, so no text
 * reads as another message, sender or message id.
 */
export function messageText(text: string, indent = CONTINUATION_INDENT): string {
  return text.replace(HEADER_LABEL, "［").replace(LINE_BREAK, `\n${indent}`);
}

/**
 * A sender's name on one line, its brackets and colons full-width: so the first `(` of a header
 * opens its real sender id (or the bot's `(你)`), and no name reads as `Alice(30001): `.
 */
function senderText(name: string): string {
  return name.replace(LINE_BREAK, " ").replace(/[()[\]:]/g, (mark) => NAME_MARKS[mark]!);
}
