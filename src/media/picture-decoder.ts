import { createHash } from "node:crypto";
import type { Sharp, SharpOptions } from "sharp";
import { errorMessage } from "../util/values.ts";
import type { MediaSettings } from "./config.ts";
import { notAPictureReason, sniffPictureMime } from "./picture-type.ts";
import type { PictureFetch, PictureMime } from "./types.ts";

/** The keys of `media` that decoding reads. */
export type PictureDecodeSettings = Pick<MediaSettings, "maxVisionSide" | "timeoutMs">;

/**
 * Largest still picture decoded (width × height): JPEG, PNG and WebP are decoded shrunk or
 * streamed row by row, so even this costs tens of MB at most.
 */
export const MAX_PICTURE_PIXELS = 50_000_000;
/** Largest GIF decoded (its screen, grown to the first frame): that frame is drawn whole, 4 bytes a pixel. */
export const MAX_GIF_PIXELS = 3_000 * 3_000;
/** What remembered results may hold: converted pictures count their bytes, refusals nothing. */
const REMEMBERED_BYTES = 32 * 1024 * 1024;
const MAX_REMEMBERED = 1_000;

const FORMAT_OF = {
  "image/jpeg": "jpeg",
  "image/png": "png",
  "image/gif": "gif",
  "image/webp": "webp",
} as const satisfies Record<PictureMime, string>;

interface Remembered {
  result: Promise<PictureFetch>;
  bytes: number;
}

/**
 * Turns fetched bytes into what models and the console are shown, with libvips (sharp) on its
 * own threads, off the event loop: the type by magic bytes; the size from the header, refused
 * before anything of that size is allocated; a GIF becomes its first frame as a PNG; a picture
 * longer than `media.maxVisionSide` is scaled down; decoding stops after `media.timeoutMs`.
 * Results, refusals included, are remembered by the bytes' SHA-256 (bounded), so the same
 * picture is not decoded twice. Never rejects: the caller logs a refusal.
 */
export class PictureDecoder {
  /** Oldest first: the first entries go when the bounds are reached. */
  readonly #remembered = new Map<string, Remembered>();
  #rememberedBytes = 0;

  constructor(private readonly deps: { settings: () => PictureDecodeSettings }) {}

  decode(body: Buffer): Promise<PictureFetch> {
    const settings = this.deps.settings();
    const key = `${sha256Of(body)}:${settings.maxVisionSide}`;
    const known = this.#remembered.get(key);
    if (known) {
      this.#remembered.delete(key);
      this.#remembered.set(key, known);
      return known.result.then((result) =>
        result.ok ? result : { ...result, reason: `${result.reason} (seen before, not decoded again)` },
      );
    }
    const entry: Remembered = { result: this.#convert(body, settings), bytes: 0 };
    this.#remembered.set(key, entry);
    void entry.result.then((result) => {
      if (this.#remembered.get(key) !== entry) return;
      entry.bytes = result.ok ? result.picture.bytes.length + (result.picture.animated?.length ?? 0) : 0;
      this.#rememberedBytes += entry.bytes;
      this.#forgetOldest();
    });
    this.#forgetOldest();
    return entry.result;
  }

  #forgetOldest(): void {
    for (const [key, entry] of this.#remembered) {
      if (this.#rememberedBytes <= REMEMBERED_BYTES && this.#remembered.size <= MAX_REMEMBERED) return;
      this.#remembered.delete(key);
      this.#rememberedBytes -= entry.bytes;
    }
  }

  /** Never rejects: what cannot be read is `{ ok: false, unreadable: true }` with a one-line reason. */
  async #convert(body: Buffer, settings: PictureDecodeSettings): Promise<PictureFetch> {
    const mime = sniffPictureMime(body);
    if (mime === undefined) return unreadable(notAPictureReason(body));
    const maxPixels = mime === "image/gif" ? MAX_GIF_PIXELS : MAX_PICTURE_PIXELS;
    const what = mime === "image/gif" ? "GIF" : FORMAT_OF[mime].toUpperCase();
    try {
      const sharp = await loadSharp();
      // The header alone (for a GIF: its frames' bounds, no pixels): nothing is allocated yet.
      const { width = 0, height = 0 } = await sharp(body, { ...INPUT, limitInputPixels: false }).metadata();
      if (width * height > maxPixels) {
        return unreadable(
          `${what} too large to decode: ${width}×${height} pixels (the limit is ${megapixels(maxPixels)})`,
        );
      }
      const { maxVisionSide, timeoutMs } = settings;
      if (mime !== "image/gif" && Math.max(width, height) <= maxVisionSide) {
        return { ok: true, picture: { bytes: body, mime, sha256: sha256Of(body) } };
      }
      const output = await sharp(body, { ...INPUT, limitInputPixels: maxPixels })
        .timeout({ seconds: Math.max(1, Math.ceil(timeoutMs / 1000)) })
        .resize({ width: maxVisionSide, height: maxVisionSide, fit: "inside", withoutEnlargement: true })
        .toFormat(mime === "image/gif" ? "png" : FORMAT_OF[mime])
        .toBuffer();
      if (mime !== "image/gif")
        return { ok: true, picture: { bytes: output, mime, sha256: sha256Of(output) } };
      return {
        ok: true,
        picture: { bytes: output, mime: "image/png", sha256: sha256Of(output), animated: body },
      };
    } catch (error) {
      return unreadable(`broken ${what}: ${errorMessage(error).split("\n")[0]}`);
    }
  }
}

/**
 * How every picture is opened: the first frame only, rows read in order (libvips then keeps a
 * few rows in memory, not the picture), turned upright by its EXIF orientation, refused on a
 * decoding error (a truncated file is read as far as it goes).
 */
const INPUT: SharpOptions = { pages: 1, sequentialRead: true, autoOrient: true, failOn: "error" };

let sharpModule: Promise<typeof import("sharp")> | undefined;

/** sharp and libvips take ~35 MB: loaded with the first picture, not by a bot that sees none. */
function loadSharp(): Promise<(input: Buffer, options: SharpOptions) => Sharp> {
  sharpModule ??= import("sharp").then((module) => {
    // libvips' operation cache would keep decoded pictures; the results are remembered above instead.
    module.default.cache(false);
    return module;
  });
  return sharpModule.then((module) => module.default);
}

function unreadable(reason: string): PictureFetch {
  return { ok: false, reason, unreadable: true };
}

function megapixels(pixels: number): string {
  return `${Math.round(pixels / 100_000) / 10} megapixels`;
}

function sha256Of(bytes: Buffer): string {
  return createHash("sha256").update(bytes).digest("hex");
}
