/**
 * Segments as prompt text, the way a group member reads the message: text inline, mentions
 * as `@name`, replies left out (the quote block carries them), everything else a short
 * bracketed placeholder.
 */

import { parseJsonLossless } from "../util/json.ts";
import { type PictureTexts, pictureKeyOf, pictureTextLine } from "./picture-text.ts";
import { isKnownSegment, type KnownSegment, type Segment } from "./segment.ts";

export interface RenderOptions {
  /** Display name for a user id, used for mentions that carry no name. */
  nameOf?: (userId: string) => string | undefined;
  /** Descriptions of pictures (by file id or url); a picture without one keeps its placeholder. */
  pictures?: PictureTexts;
}

/** The app id QQ gives a merged forward shared as a json card. */
const MULTIMSG_APP = "com.tencent.multimsg";

export function renderSegments(segments: Segment[], options: RenderOptions = {}): string {
  let text = "";
  for (const segment of segments) {
    text += isKnownSegment(segment) ? renderKnown(segment, options) : `[${segment.type}]`;
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
      const key = pictureKeyOf(segment.data);
      const described = key === undefined ? undefined : options.pictures?.get(key);
      if (described) return pictureTextLine(described);
      return bracketed(segment.data.summary) ?? "[图片]";
    }
    case "record":
      return "[语音]";
    case "video":
      return "[视频]";
    case "face":
      return "[表情]";
    case "forward":
    case "node":
      return "[合并转发]";
    case "file":
      return segment.data.name ? `[文件: ${segment.data.name}]` : "[文件]";
    case "json":
      return multimsgCard(segment.data.data) === undefined ? "[卡片]" : "[合并转发]";
    case "xml":
      return "[卡片]";
    case "poke":
      return "[戳一戳]";
    case "mface":
      return bracketed(segment.data.summary) ?? "[表情包]";
    case "markdown":
      return segment.data.content;
    case "dice":
      return "[骰子]";
    case "rps":
      return "[猜拳]";
  }
}

function renderMention(userId: string, name: string | undefined, options: RenderOptions): string {
  if (userId === "all") return "@全体成员";
  // Some implementations put the `@` into the name already.
  const displayName = name?.replace(/^@/, "") || options.nameOf?.(userId) || userId;
  return `@${displayName}`;
}

/** A summary such as QQ's `[动画表情]`, bracketed if it is not already. */
function bracketed(summary: string | undefined): string | undefined {
  if (!summary) return undefined;
  return summary.startsWith("[") && summary.endsWith("]") ? summary : `[${summary}]`;
}

/** Ids to pass to get_forward_msg, in message order, each once. */
export function extractForwardIds(segments: Segment[]): string[] {
  const ids = new Set<string>();
  for (const segment of segments) {
    if (!isKnownSegment(segment)) continue;
    if (segment.type === "forward") ids.add(segment.data.id);
    if (segment.type === "json") {
      const resid = residOf(multimsgCard(segment.data.data));
      if (resid !== undefined) ids.add(resid);
    }
  }
  return [...ids];
}

/** The id of the message this one replies to, if any. */
export function findReplyId(segments: Segment[]): string | undefined {
  for (const segment of segments) {
    if (isKnownSegment(segment) && segment.type === "reply") return segment.data.id;
  }
  return undefined;
}

/** The parsed card when a json segment's text is a merged-forward card, else undefined. */
function multimsgCard(cardText: string): unknown {
  try {
    const card = parseJsonLossless(cardText);
    return fieldOf(card, "app") === MULTIMSG_APP ? card : undefined;
  } catch {
    return undefined;
  }
}

/** The forward id a merged-forward card carries in `meta.detail.resid`. */
function residOf(card: unknown): string | undefined {
  const resid = fieldOf(fieldOf(fieldOf(card, "meta"), "detail"), "resid");
  return typeof resid === "string" && resid !== "" ? resid : undefined;
}

function fieldOf(value: unknown, key: string): unknown {
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}
