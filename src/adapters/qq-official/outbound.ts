import type { Segment } from "../../message/segment.ts";
import { audioFormat } from "../../util/audio-format.ts";

/**
 * Our segments as the OpenAPI's message bodies. Text (and `@name` for a mention: openids
 * cannot be mentioned in group text) becomes `content`, or markdown when the bot may send it;
 * pictures, voice and video are uploaded first (`/files`) and sent as media messages.
 */

/** `file_type` of the upload endpoint (botpy `post_group_file`): 1 picture, 2 video, 3 voice (SILK). */
export type MediaKind = 1 | 2 | 3;

export interface OutgoingMedia {
  fileType: MediaKind;
  /** Exactly one: a URL the platform fetches, or the bytes (base64). */
  url?: string;
  fileData?: string;
}

export interface OutgoingMessage {
  text: string;
  media: OutgoingMedia[];
  /** The message a reply segment quotes, answered passively when still open. */
  quotedMsgId: string | undefined;
  /** Segments that cannot be sent here, for one log line. */
  dropped: string[];
}

const INLINE_PREFIX = "base64://";

export async function composeMessage(segments: Segment[]): Promise<OutgoingMessage> {
  const outgoing: OutgoingMessage = { text: "", media: [], quotedMsgId: undefined, dropped: [] };
  for (const segment of segments) {
    switch (segment.type) {
      case "text":
        outgoing.text += String(segment.data.text ?? "");
        break;
      case "at":
        if (typeof segment.data.name === "string" && segment.data.name)
          outgoing.text += `@${segment.data.name} `;
        break;
      case "reply":
        outgoing.quotedMsgId = String(segment.data.id ?? "") || undefined;
        break;
      case "image":
      case "video":
      case "record": {
        const media = await mediaOf(segment.type, String(segment.data.file ?? ""), segment.data.url);
        if (media) outgoing.media.push(media);
        else outgoing.dropped.push(`${segment.type} (not a URL or base64:// bytes)`);
        break;
      }
      default:
        outgoing.dropped.push(segment.type);
    }
  }
  outgoing.text = outgoing.text.trim();
  return outgoing;
}

async function mediaOf(
  type: "image" | "video" | "record",
  file: string,
  url: unknown,
): Promise<OutgoingMedia | undefined> {
  const fileType: MediaKind = type === "image" ? 1 : type === "video" ? 2 : 3;
  const remote = [file, url].find(
    (value): value is string => typeof value === "string" && /^https?:\/\//i.test(value),
  );
  if (remote) return { fileType, url: remote };
  if (!file.startsWith(INLINE_PREFIX)) return undefined;
  const base64 = file.slice(INLINE_PREFIX.length);
  if (fileType !== 3) return { fileType, fileData: base64 };
  return { fileType, fileData: await asSilk(base64) };
}

/** The platform plays voice only as SILK: WAV (what speech synthesis gives) is encoded here. */
async function asSilk(base64: string): Promise<string> {
  const bytes = Buffer.from(base64, "base64");
  if (audioFormat(bytes) !== "wav") return base64;
  const { encode: encodeSilk } = await import("silk-wasm");
  const silk = await encodeSilk(bytes, 0);
  return Buffer.from(silk.data).toString("base64");
}
