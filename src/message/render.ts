/**
 * Segments as prompt text, the way a group member reads the message: text inline, mentions
 * as `@name`, replies left out (the quote block carries them), cards and files by their
 * title and name, everything else a short bracketed placeholder.
 */

import { cardText, jsonCardText, shown, xmlCardParts } from "./card-text.ts";
import { byteSize, otherSegmentText, withDetails } from "./other-segments.ts";
import { type PictureTexts, pictureKeyOf, pictureTextLine } from "./picture-text.ts";
import { isKnownSegment, type KnownSegment, type Segment, type SegmentOf } from "./segment.ts";

export interface RenderOptions {
  /** Display name for a user id, used for mentions that carry no name. */
  nameOf?: (userId: string) => string | undefined;
  /** The bot's own account: a mention of it reads `@你`, as its own lines read `(你)`. */
  selfId?: string;
  /** Descriptions of pictures and transcripts of voice messages (by file id or url); one without keeps its placeholder. */
  pictures?: PictureTexts;
}

export function renderSegments(segments: Segment[], options: RenderOptions = {}): string {
  let text = "";
  for (const segment of segments) {
    text += isKnownSegment(segment)
      ? renderKnown(segment, options)
      : otherSegmentText(segment.type, segment.data);
  }
  return text;
}

function renderKnown(segment: KnownSegment, options: RenderOptions): string {
  switch (segment.type) {
    case "text":
      return segment.data.text;
    case "at":
      return renderMention(segment.data.qq, segment.data.name, options);
    case "reply":
      return "";
    case "image": {
      const described = describedText(segment.data, options);
      if (described) return described;
      return bracketed(segment.data.summary) ?? "[图片]";
    }
    case "record":
      return describedText(segment.data, options) ?? "[语音]";
    case "video":
      return "[视频]";
    case "face":
      return withDetails("表情", [faceName(segment)]);
    case "forward":
    case "node":
      return "[合并转发]";
    case "file":
      return fileText(segment);
    case "json":
      return jsonCardText(segment.data.data);
    case "xml":
      return cardText(xmlCardParts(segment.data.data));
    case "poke":
      return "[戳一戳]";
    case "mface":
      return bracketed(segment.data.summary ?? segment.data.name) ?? "[表情包]";
    case "markdown":
      return segment.data.content;
    case "dice":
      return withDetails("骰子", [segment.data.result ?? segment.data.value]);
    case "rps":
      return withDetails("猜拳", [segment.data.result ?? segment.data.value]);
  }
}

/** A picture's description or a voice message's transcript, when the turn has one. */
function describedText(data: { file?: string; url?: string }, options: RenderOptions): string | undefined {
  const key = pictureKeyOf(data);
  const described = key === undefined ? undefined : options.pictures?.get(key);
  return described && pictureTextLine(described);
}

function renderMention(userId: string, name: string | undefined, options: RenderOptions): string {
  if (userId === "all") return "@全体成员";
  if (userId === options.selfId) return "@你";
  // Some implementations put the `@` into the name already.
  const displayName = name?.replace(/^@/, "") || options.nameOf?.(userId) || userId;
  return `@${displayName}`;
}

/** A QQ face's name as NapCat reports it (`raw.faceText`, e.g. "/大怨种"), without the slash. */
function faceName(segment: SegmentOf<"face">): string | undefined {
  const raw = segment.data.raw;
  const faceText =
    typeof raw === "object" && raw !== null ? (raw as { faceText?: unknown }).faceText : undefined;
  return shown(faceText)?.replace(/^\//, "");
}

/** `[文件：名字 (大小)]`, whichever fields the implementation names them by. */
function fileText(segment: SegmentOf<"file">): string {
  const { name, file_name, file, file_size, size } = segment.data;
  return withDetails("文件", [shown(name ?? file_name ?? file)], byteSize(file_size ?? size));
}

/** A summary such as QQ's `[动画表情]`, bracketed if it is not already. */
function bracketed(summary: string | undefined): string | undefined {
  if (!summary) return undefined;
  return summary.startsWith("[") && summary.endsWith("]") ? summary : `[${summary}]`;
}

/** The id of the message this one replies to, if any. */
export function findReplyId(segments: Segment[]): string | undefined {
  for (const segment of segments) {
    if (isKnownSegment(segment) && segment.type === "reply") return segment.data.id;
  }
  return undefined;
}
