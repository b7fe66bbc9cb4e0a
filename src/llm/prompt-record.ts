import type { LlmMessage } from "./types.ts";

/** A user message's image as the timeline keeps it: its type and size, not its bytes. */
export interface RecordedImage {
  mime: string;
  bytes: number;
}

export type RecordedMessage =
  | Exclude<LlmMessage, { role: "user" }>
  | { role: "user"; content: string; images?: RecordedImage[] };

/**
 * A prompt for monitor events and the stored timeline: images (megabytes each, which JSON
 * would spell out byte by byte) become their type and size.
 */
export function promptRecord(messages: LlmMessage[]): RecordedMessage[] {
  return messages.map((message): RecordedMessage => {
    if (message.role !== "user") return message;
    const { images, ...text } = message;
    if (!images) return text;
    return { ...text, images: images.map((image) => ({ mime: image.mime, bytes: image.bytes.byteLength })) };
  });
}
