/**
 * What a described picture reads as in prompt text (`[图片：一只橘猫趴在键盘上]`,
 * `[表情：无语]`). Descriptions reach the renderer through `RenderOptions.pictures`, keyed by
 * the segment's file id (or its url when it has no file id), so stored messages never change.
 */

import type { Segment } from "./segment.ts";

/** A picture's description as the transcript shows it. */
export interface PictureText {
  kind: "image" | "sticker";
  description: string;
}

/** Picture key (see `pictureKeyOf`) → its description. */
export type PictureTexts = ReadonlyMap<string, PictureText>;

/** The key an image segment is described under: its file id, else its url. */
export function pictureKeyOf(data: { file?: string; url?: string }): string | undefined {
  return data.file || data.url || undefined;
}

export function pictureTextLine(text: PictureText): string {
  return `[${text.kind === "sticker" ? "表情" : "图片"}：${text.description}]`;
}

/**
 * One turn's picture descriptions: what is described so far, and describing the pictures of
 * more messages (within the turn's caps). `describe` never rejects: a picture it could not
 * describe keeps its placeholder.
 */
export interface PictureDescriptions {
  readonly texts: PictureTexts;
  /** Segments of messages, most important first: the caps leave the last ones undescribed. */
  describe(segmentLists: Segment[][]): Promise<void>;
}
