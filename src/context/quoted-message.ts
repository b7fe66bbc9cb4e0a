import { normalizeSegments } from "../message/normalize.ts";
import { idToString, nonEmptyString } from "../message/onebot-values.ts";
import type { Segment } from "../message/segment.ts";
import { isRecord } from "../util/values.ts";

/** A message as read from a `get_msg` answer or one entry of a `get_forward_msg` answer. */
export interface QuotedMessage {
  senderId?: string;
  /** The group card when set, else the nickname. */
  senderName?: string;
  /** Unix time in milliseconds. */
  time?: number;
  segments: Segment[];
}

/**
 * Reads the fields defensively: these answers are untyped and differ between
 * implementations, so a missing or oddly shaped field becomes undefined, never a throw.
 * Understands a full message object (NapCat, SnowLuma, `get_msg`), go-cqhttp's
 * `{content, sender, time}` and the spec's `{type: "node", data: {user_id, nickname, content}}`.
 */
export function parseQuotedMessage(raw: unknown): QuotedMessage {
  let entry = isRecord(raw) ? raw : {};
  if (entry.type === "node" && isRecord(entry.data)) entry = entry.data;
  const sender = isRecord(entry.sender) ? entry.sender : {};
  return {
    senderId: idToString(sender.user_id) ?? idToString(entry.user_id) ?? idToString(entry.uin),
    senderName:
      nonEmptyString(sender.card) ??
      nonEmptyString(sender.nickname) ??
      nonEmptyString(entry.nickname) ??
      nonEmptyString(entry.name),
    time: unixMillis(entry.time),
    segments: segmentsOf(contentOf(entry)),
  };
}

/**
 * go-cqhttp answers a node that is itself a forward with the inner nodes in place of its
 * segments (`{sender, time, content}` maps, no `type`): that reads as a forward whose messages
 * came inline, not as a message without text.
 */
function segmentsOf(content: unknown): Segment[] {
  if (Array.isArray(content) && content.length > 0 && content.every(isNodeMap)) {
    return [{ type: "forward", data: { id: "", content } }];
  }
  return normalizeSegments(content);
}

function isNodeMap(entry: unknown): boolean {
  return (
    isRecord(entry) &&
    entry.type === undefined &&
    (entry.content !== undefined || entry.message !== undefined)
  );
}

/** `message`, else `content`, else `raw_message`: the first that holds anything. */
function contentOf(entry: Record<string, unknown>): unknown {
  for (const value of [entry.message, entry.content, entry.raw_message]) {
    if (Array.isArray(value) || nonEmptyString(value) !== undefined || isRecord(value)) return value;
  }
  return [];
}

/** OneBot times are Unix seconds, as a number or a numeric string. */
function unixMillis(value: unknown): number | undefined {
  const seconds = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  return typeof seconds === "number" && Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : undefined;
}
