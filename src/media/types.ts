/**
 * Pictures in chat: what a message points at, and the bytes once fetched.
 * Fetching (src/media/fetch-*.ts) and describing (src/media/vision-*.ts) meet here.
 */

/** A picture a OneBot implementation put in a message segment (never a URL typed in text). */
export interface PictureRef {
  /** `sticker`: an image segment with `sub_type` 1, or an `mface` market sticker. */
  kind: "image" | "sticker";
  /** The implementation's file id (`image.file`); with no usable `url`, `get_image` resolves it. */
  fileId?: string;
  /** The segment's http(s) `url`, if any. */
  url?: string;
  /** What QQ itself says the picture is (`summary`), if anything. */
  summary?: string;
}

export type PictureMime = "image/jpeg" | "image/png" | "image/gif" | "image/webp";

export interface FetchedPicture {
  bytes: Buffer;
  /** Checked by magic bytes, not by what the server said. */
  mime: PictureMime;
  /** Hex SHA-256 of `bytes`: the description cache's key. */
  sha256: string;
  /** The GIF as it came, when `bytes` is its first frame: what a kept sticker sends, animated. */
  animated?: Buffer;
}

export type PictureFetch =
  | { ok: true; picture: FetchedPicture }
  /** `unreadable`: the bytes arrived but are no picture the bot can read (not a picture, broken, too large). */
  | { ok: false; reason: string; unreadable?: true };

/**
 * Fetches a picture of one account's chat with every limit applied (http(s) only, no private,
 * loopback or link-local address unless allowed, size cap, timeout, type by magic bytes,
 * the decoding bounds of picture-decoder.ts).
 * Never throws: a failure is `{ ok: false, reason }`, a one-line English reason for logs and
 * the timeline.
 */
export interface PictureFetcher {
  fetch(ref: PictureRef, signal?: AbortSignal): Promise<PictureFetch>;
  /** Bytes a segment carried itself (`base64://…`): checked and converted as fetched ones are. */
  decode(bytes: Buffer): Promise<PictureFetch>;
}
