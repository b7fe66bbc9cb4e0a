/**
 * What a described picture or a transcribed voice message reads as in prompt text
 * (`[图片：一只橘猫趴在键盘上]`, `[表情：无语]`, `[语音：今晚八点开会]`). Descriptions reach the
 * renderer through `RenderOptions.pictures`, keyed by the segment's file id (or its url when it
 * has no file id), so stored messages never change.
 */

import type { Segment } from "./segment.ts";

/** A picture's description (or a voice message's transcript) as the transcript shows it. */
export interface PictureText {
  kind: "image" | "sticker" | "voice";
  description: string;
}

/** Picture key (see `pictureKeyOf`) → its description. */
export type PictureTexts = ReadonlyMap<string, PictureText>;

/** The key an image (or record) segment is described under: its file id, else its url. */
export function pictureKeyOf(data: { file?: string; url?: string }): string | undefined {
  return data.file || data.url || undefined;
}

const LABELS: Record<PictureText["kind"], string> = { image: "图片", sticker: "表情", voice: "语音" };

export function pictureTextLine(text: PictureText): string {
  return `[${LABELS[text.kind]}：${text.description}]`;
}

/**
 * One turn's picture descriptions: what is described so far, and describing the pictures of
 * more messages (within the turn's caps). `describe` never rejects: a picture it could not
 * describe keeps its placeholder.
 */
export interface PictureDescriptions {
  readonly texts: PictureTexts;
  /**
   * Segments of messages, most important first: the caps leave the last ones undescribed.
   * `pointedAt`: the messages the turn points at (its triggers and the message before each);
   * with `media.vision.onDemand` only their new pictures are described, the others shown only
   * when described before. Absent: every list is pointed at (what a quote or forward shows).
   */
  describe(segmentLists: Segment[][], pointedAt?: Segment[][]): Promise<void>;
}
