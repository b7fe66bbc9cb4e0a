import { createHash } from "node:crypto";
import { pictureKeyOf } from "../message/picture-text.ts";
import type { Segment } from "../message/segment.ts";
import { isSegment } from "../message/segment-guards.ts";
import { isPayloadNotKept } from "../message/stored-payloads.ts";
import type { PictureFetch, PictureFetcher, PictureRef } from "./types.ts";

/** A picture of a message and the key its description is rendered under. */
export interface KeyedPicture {
  key: string;
  ref: PictureRef;
  /** Base64 bytes the segment carried itself (`base64://…`, the console playground): nothing to fetch. */
  inline?: string;
}

const INLINE_PREFIX = "base64://";

/**
 * The pictures the OneBot implementation put in these segments (image segments only: a
 * market sticker's `summary` already says what it means), each key once, in order.
 */
export function picturesOf(segmentLists: Segment[][]): KeyedPicture[] {
  const pictures = new Map<string, KeyedPicture>();
  for (const segments of segmentLists) {
    for (const segment of segments) {
      if (!isSegment(segment, "image")) continue;
      const key = pictureKeyOf(segment.data);
      if (key === undefined || pictures.has(key)) continue;
      const { file, url, summary, sub_type, subType } = segment.data;
      // The bot's own large picture, its bytes dropped from history: its summary says what it was.
      if (isPayloadNotKept(file)) continue;
      const ref: PictureRef = { kind: (sub_type ?? subType) === "1" ? "sticker" : "image" };
      if (summary) ref.summary = summary;
      if (file.startsWith(INLINE_PREFIX)) {
        const inline = file.slice(INLINE_PREFIX.length);
        // A short stand-in for the file id, so the description is found again without decoding.
        ref.fileId = `inline:${createHash("sha256").update(inline).digest("hex")}`;
        pictures.set(key, { key, ref, inline });
        continue;
      }
      if (file) ref.fileId = file;
      if (url) ref.url = url;
      pictures.set(key, { key, ref });
    }
  }
  return [...pictures.values()];
}

/** The picture of one segment of a message, keyed as a turn keys it; undefined when the segment is not one. */
export function pictureAt(segments: Segment[], index: number): KeyedPicture | undefined {
  const segment = segments[index];
  return segment === undefined ? undefined : picturesOf([[segment]])[0];
}

/** A picture's bytes through the account's fetcher (its limits): inline ones are only decoded. */
export async function fetchKeyedPicture(
  picture: KeyedPicture,
  fetcher: PictureFetcher,
  signal?: AbortSignal,
): Promise<PictureFetch> {
  if (picture.inline !== undefined) return fetcher.decode(Buffer.from(picture.inline, "base64"));
  return fetcher.fetch(picture.ref, signal);
}
