import type { ChatMessage, Segment } from "./types.ts";

/** Where a browser can load a platform file from: inline base64 becomes a data URL. */
export function mediaSource(file: unknown, kind: "image" | "audio"): string | undefined {
  if (typeof file !== "string") return undefined;
  if (file.startsWith("base64://")) {
    const base64 = file.slice("base64://".length);
    return `data:${sniffType(base64, kind)};base64,${base64}`;
  }
  if (/^(https?:|data:)/.test(file)) return file;
  return undefined;
}

/** Guesses a media type from the first bytes, so the browser picks the right decoder. */
function sniffType(base64: string, kind: "image" | "audio"): string {
  const head = atob(base64.slice(0, 16));
  if (head.startsWith("RIFF")) return kind === "audio" ? "audio/wav" : "image/webp";
  if (head.startsWith("OggS")) return "audio/ogg";
  if (head.startsWith("ID3") || head.charCodeAt(0) === 0xff)
    return kind === "audio" ? "audio/mpeg" : "image/jpeg";
  if (head.startsWith("\x89PNG")) return "image/png";
  if (head.startsWith("GIF8")) return "image/gif";
  return kind === "audio" ? "audio/mpeg" : "image/png";
}

/** Plain text of a message, as a one-line preview. */
export function previewText(segments: Segment[]): string {
  return segments
    .map((segment) => {
      switch (segment.type) {
        case "text":
          return String(segment.data.text ?? "");
        case "at":
          return `@${String(segment.data.name ?? segment.data.qq)} `;
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
}

/** A message's segments as the page shows them: text, mentions, quotes, pictures and voice. */
export function Segments({ segments, lookup }: SegmentsProps) {
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
                @{String(segment.data.name ?? segment.data.qq)}{" "}
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
          case "image": {
            const src = mediaSource(segment.data.file, "image") ?? mediaSource(segment.data.url, "image");
            return src ? <img key={key} class="picture" src={src} alt="" /> : <span key={key}>[图片]</span>;
          }
          case "record": {
            const src = mediaSource(segment.data.file, "audio") ?? mediaSource(segment.data.url, "audio");
            return src ? (
              // biome-ignore lint/a11y/useMediaCaption: a voice message has no caption track
              <audio key={key} class="voice" controls src={src} />
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
