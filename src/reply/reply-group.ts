/**
 * The outgoing message group of a reply in the reply extensions' dict form, how a group an
 * extension returned is checked, and how it becomes OneBot segments for sending.
 */
import { createHash } from "node:crypto";
import { makeSegment, type Segment } from "../message/segment.ts";
import type { ReplyMessage, ReplySegment } from "../sdk/types.ts";
import { audioFormat } from "../util/audio-format.ts";

/** A message ready for the adapter; the sender adds the quote. */
export interface OutgoingReply {
  segments: Segment[];
  quotePrevious: boolean;
}

/** The group the replyer's text makes: one text message per chunk, none quoting. */
export function textGroup(chunks: string[]): ReplyMessage[] {
  return chunks.map((text) => ({ segments: [{ type: "text", data: text }], quote_previous: false }));
}

/** Plain text messages, none quoting (digests, summaries, a reply no extension rewrote). */
export function textReplies(chunks: string[]): OutgoingReply[] {
  return toOutgoing(textGroup(chunks));
}

/**
 * The binary attachments of one reply by hash. A group an extension returns is checked
 * against it: new images, emoji, voice and files carry Base64 data (their hash is computed
 * here), while an image or emoji already in the group may come back with its hash alone.
 */
export class ReplyAttachments {
  private readonly base64ByHash = new Map<string, string>();

  /** The group with every attachment carrying both its data and its hash; throws what is wrong. */
  admit(group: ReplyMessage[]): ReplyMessage[] {
    if (group.length === 0) throw new Error("returned an empty message group");
    return group.map((message, index) => {
      if (message.segments.length === 0) throw new Error(`message ${index + 1} has no segments`);
      return {
        segments: message.segments.map((segment, position) => {
          try {
            return this.admitSegment(segment);
          } catch (error) {
            const why = error instanceof Error ? error.message : String(error);
            throw new Error(`message ${index + 1}, segment ${position + 1} (${segment.type}): ${why}`);
          }
        }),
        quote_previous: message.quote_previous,
      };
    });
  }

  private admitSegment(segment: ReplySegment): ReplySegment {
    switch (segment.type) {
      case "text":
        requireText(segment.data, "text");
        return segment;
      case "at":
      case "reply":
      case "forward":
        requireText(segment.data, segment.type === "at" ? "a user id" : "an id");
        return segment;
      case "dict":
        if (!isRawSegment(segment.data)) throw new Error("data must be a OneBot segment { type, data }");
        return segment;
      case "image":
      case "emoji":
        requireString(segment.data);
        return this.withBytes(segment, segment.binary_data_base64 ?? this.known(segment.hash));
      case "voice": {
        requireString(segment.data);
        const bytes = decodeBase64(segment.binary_data_base64);
        if (!audioFormat(bytes)) {
          throw new Error("binary_data_base64 is not audio (WAV, MP3, OGG, AMR, SILK, FLAC or M4A)");
        }
        return this.withBytes(segment, segment.binary_data_base64);
      }
      case "file":
        requireText(segment.data, "the file name");
        return this.withBytes(segment, segment.binary_data_base64);
    }
  }

  private known(hash: string | undefined): string {
    if (hash === undefined) throw new Error("a new attachment needs binary_data_base64");
    const base64 = this.base64ByHash.get(hash);
    if (base64 === undefined) {
      throw new Error(
        `hash ${hash} is not an attachment of this reply; send new ones with binary_data_base64`,
      );
    }
    return base64;
  }

  private withBytes<T extends ReplySegment & { hash?: string }>(segment: T, base64: string | undefined): T {
    const hash = createHash("sha256").update(decodeBase64(base64)).digest("hex");
    this.base64ByHash.set(hash, base64!);
    return { ...segment, binary_data_base64: base64, hash };
  }
}

/**
 * OneBot segments of segments a plugin sends itself (`bot.send`, a command's answer), checked
 * like a reply group's; there are no earlier attachments to refer to by hash.
 */
export function sendableSegments(segments: ReplySegment[]): Segment[] {
  const [message] = toOutgoing(new ReplyAttachments().admit([{ segments, quote_previous: false }]));
  return message!.segments;
}

/** OneBot segments of an admitted group (`binary_data_base64` → `base64://…`). */
export function toOutgoing(group: ReplyMessage[]): OutgoingReply[] {
  return group.map((message) => ({
    segments: message.segments.map(toOneBot),
    quotePrevious: message.quote_previous,
  }));
}

function toOneBot(segment: ReplySegment): Segment {
  switch (segment.type) {
    case "text":
      return makeSegment("text", { text: segment.data });
    case "at":
      return makeSegment("at", { qq: segment.data });
    case "reply":
      return makeSegment("reply", { id: segment.data });
    case "forward":
      return makeSegment("forward", { id: segment.data });
    case "dict":
      return makeSegment(segment.data.type, segment.data.data);
    case "image":
      return makeSegment("image", { file: inline(segment.binary_data_base64) });
    case "emoji":
      // QQ shows an image of sub_type 1 as a sticker.
      return makeSegment("image", { file: inline(segment.binary_data_base64), sub_type: "1" });
    case "voice":
      return makeSegment("record", { file: inline(segment.binary_data_base64) });
    case "file":
      return makeSegment("file", { file: inline(segment.binary_data_base64), name: segment.data });
  }
}

/**
 * The group as the monitor shows it: Base64 data replaced by its size, so a voice reply does
 * not put megabytes on the timeline.
 */
export function describeGroup(group: ReplyMessage[]): unknown[] {
  return group.map((message) => ({
    quote_previous: message.quote_previous,
    segments: message.segments.map((segment) => {
      const { binary_data_base64: base64, ...rest } = segment as ReplySegment & {
        binary_data_base64?: string;
      };
      return base64 === undefined ? rest : { ...rest, bytes: Buffer.byteLength(base64, "base64") };
    }),
  }));
}

function inline(base64: string | undefined): string {
  return `base64://${base64}`;
}

/** One character class and no groups: a grouped pattern overflows the stack on megabytes of audio. */
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function decodeBase64(base64: string | undefined): Buffer {
  if (base64 === undefined || base64 === "") throw new Error("binary_data_base64 must not be empty");
  if (base64.length % 4 !== 0 || !BASE64.test(base64))
    throw new Error("binary_data_base64 is not valid Base64");
  return Buffer.from(base64, "base64");
}

function requireString(data: unknown): void {
  if (typeof data !== "string") throw new Error("data must be a string");
}

function requireText(data: unknown, what: string): void {
  if (typeof data !== "string" || data === "") throw new Error(`data must be ${what}, a non-empty string`);
}

function isRawSegment(data: unknown): boolean {
  if (typeof data !== "object" || data === null) return false;
  const raw = data as { type?: unknown; data?: unknown };
  return (
    typeof raw.type === "string" &&
    raw.type !== "" &&
    typeof raw.data === "object" &&
    raw.data !== null &&
    !Array.isArray(raw.data)
  );
}
