import type { MadeImage } from "../llm/image-maker.ts";
import type { Speech } from "../llm/speaker.ts";
import { makeSegment, type Segment } from "../message/segment.ts";
import { notAPictureReason, sniffPictureMime } from "./picture-type.ts";
import type { PictureMime } from "./types.ts";
import { type HostResolver, systemResolver, vettedGet } from "./vetted-get.ts";

/**
 * The audio of a spoken reply as it is sent: WAV or MP3 as spoken, which NapCat and LLOneBot
 * transcode for QQ themselves; with `silk`, a WAV encoded to SILK here with silk-wasm, for an
 * implementation that plays only SILK.
 */
export async function recordAudio(speech: Speech, silk: boolean): Promise<Buffer> {
  if (!silk) return speech.audio;
  if (speech.format !== "wav") {
    throw new Error(
      `media.tts.silk: ${speech.provider} gives ${speech.format}, and only WAV is encoded to SILK`,
    );
  }
  // silk-wasm (and its WebAssembly) loads on the first such voice, not at start-up.
  const { encode } = await import("silk-wasm");
  return Buffer.from((await encode(speech.audio, 0)).data);
}

/** The `record` segment of sent audio, inline (`base64://…`). */
export function recordSegment(audio: Buffer): Segment {
  return makeSegment("record", { file: `base64://${audio.toString("base64")}` });
}

export interface PictureFetchSettings {
  allowPrivateNetworks: boolean;
  maxBytes: number;
  signal: AbortSignal;
  /** Host names' addresses; the system's unless a test sets them. */
  resolve?: HostResolver;
}

export type MadePicture =
  | { ok: true; bytes: Buffer; mime: PictureMime; fetched: boolean }
  | { ok: false; reason: string };

/**
 * The bytes of a picture a model made: its Base64 as given, or its url fetched the way a chat's
 * picture is (vetted-get.ts: no private addresses unless allowed, capped size, checked
 * redirects). Either must be a picture (by its magic bytes) within `maxBytes`.
 */
export async function madePicture(image: MadeImage, settings: PictureFetchSettings): Promise<MadePicture> {
  let bytes = image.bytes;
  if (bytes === undefined && image.url !== undefined) {
    const got = await vettedGet(image.url, {
      allowPrivateNetworks: settings.allowPrivateNetworks,
      maxBytes: settings.maxBytes,
      resolve: settings.resolve ?? systemResolver,
      signal: settings.signal,
    });
    if (!got.ok) return { ok: false, reason: `fetching ${image.url}: ${got.reason}` };
    bytes = got.body;
  }
  if (bytes === undefined) return { ok: false, reason: "the model gave no picture" };
  if (bytes.length > settings.maxBytes) {
    return { ok: false, reason: `the picture is over media.images.maxBytes (${settings.maxBytes} bytes)` };
  }
  const mime = sniffPictureMime(bytes);
  if (mime === undefined) return { ok: false, reason: notAPictureReason(bytes) };
  return { ok: true, bytes, mime, fetched: image.bytes === undefined };
}

/** The `image` segment of a made picture, inline (`base64://…`). */
export function pictureSegment(bytes: Buffer): Segment {
  return makeSegment("image", { file: `base64://${bytes.toString("base64")}` });
}
