import type { MediaSource } from "./fetched-media.ts";
import { Picture } from "./picture.tsx";
import type { ChatMessage, Segment } from "./types.ts";
import { Voice } from "./voice.tsx";

/**
 * A voice message the page can play without contacting anyone: inline base64 becomes a data
 * URL. A remote one is fetched through the bot ({@link Voice}), never from its own URL.
 */
export function inlineAudioSource(file: unknown): string | undefined {
  if (typeof file !== "string") return undefined;
  if (file.startsWith("base64://")) {
    const base64 = file.slice("base64://".length);
    return `data:${sniffAudioType(base64)};base64,${base64}`;
  }
  if (file.startsWith("data:")) return file;
  return undefined;
}

/** Guesses an audio type from the first bytes, so the browser picks the right decoder. */
function sniffAudioType(base64: string): string {
  const head = atob(base64.slice(0, 16));
  if (head.startsWith("RIFF")) return "audio/wav";
  if (head.startsWith("OggS")) return "audio/ogg";
  return "audio/mpeg";
}

/** Whether a voice message names an http(s) address the bot can fetch it from. */
function hasRemoteAudio(data: Record<string, unknown>): boolean {
  return [data.url, data.file].some((value) => typeof value === "string" && /^https?:\/\//i.test(value));
}

/** Who an @ names: the name it carries, else the member's known name, else the id. */
function mentionName(data: Record<string, unknown>, names: Record<string, string> = {}): string {
  return String(data.name ?? names[String(data.qq)] ?? data.qq);
}

/** Plain text of a message, as a one-line preview. */
export function previewText(segments: Segment[], names?: Record<string, string>): string {
  return segments
    .map((segment) => {
      switch (segment.type) {
        case "text":
          return String(segment.data.text ?? "");
        case "at":
          return `@${mentionName(segment.data, names)} `;
        case "reply":
          return "";
        case "image":
          return "[图片]";
        case "record":
          return "[语音]";
        default:
          return `[${segment.type}]`;
      }
    })
    .join("")
    .trim();
}

interface SegmentsProps {
  segments: Segment[];
  /** Finds a quoted message among those on screen. */
  lookup?: (messageId: string) => ChatMessage | undefined;
  /** The stored message these segments are, whose pictures and voice the bot serves; without it they read [图片], [语音]. */
  source?: MediaSource;
  /** Bumped when pictures may have been described since (see {@link Picture}). */
  revision?: number;
  /** Members' names by id, for the @s that carry only an id (see chat-names.ts). */
  names?: Record<string, string>;
}

/** A message's segments as the page shows them: text, mentions, quotes, pictures and voice. */
export function Segments({ segments, lookup, source, revision, names }: SegmentsProps) {
  return (
    <span class="segments">
      {segments.map((segment, index) => {
        const key = `${index}-${segment.type}`;
        switch (segment.type) {
          case "text":
            return <span key={key}>{String(segment.data.text ?? "")}</span>;
          case "at":
            return (
              <span key={key} class="mention">
                @{mentionName(segment.data, names)}{" "}
              </span>
            );
          case "reply": {
            const quoted = lookup?.(String(segment.data.id));
            return (
              <span key={key} class="quote">
                {quoted
                  ? `${quoted.senderName}: ${previewText(quoted.segments)}`
                  : `#${String(segment.data.id)}`}
              </span>
            );
          }
          case "image":
            // Never the segment's own url: the browser would contact QQ's servers with the admin's address.
            return source ? (
              <Picture key={key} source={source} index={index} revision={revision} />
            ) : (
              <span key={key}>[图片]</span>
            );
          case "record": {
            const inline = inlineAudioSource(segment.data.file);
            if (inline) {
              // biome-ignore lint/a11y/useMediaCaption: a voice message has no caption track
              return <audio key={key} class="voice" controls src={inline} />;
            }
            // Never the segment's own url: the browser would contact that host with the admin's address.
            return source && hasRemoteAudio(segment.data) ? (
              <Voice key={key} source={source} index={index} />
            ) : (
              <span key={key}>[语音]</span>
            );
          }
          default:
            return <span key={key}>[{segment.type}]</span>;
        }
      })}
    </span>
  );
}
