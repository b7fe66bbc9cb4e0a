import { PictureDecoder, type PictureDecodeSettings } from "../../src/media/picture-decoder.ts";
import {
  createPictureFetcher,
  type PictureFetcherDeps,
  type PictureFetchSettings,
} from "../../src/media/picture-fetcher.ts";
import type { FetchedPicture, PictureFetch } from "../../src/media/types.ts";
import { LogCapture } from "./log-capture.ts";

type MediaTestSettings = PictureFetchSettings & PictureDecodeSettings;

/** The defaults of `media`'s fetching and decoding keys (tsumugi.example.yaml), with these changes. */
export function fetchSettings(changes: Partial<MediaTestSettings> = {}): MediaTestSettings {
  return {
    allowPrivateNetworks: false,
    allowLocalFiles: false,
    maxBytes: 10 * 1024 * 1024,
    timeoutMs: 10_000,
    maxVisionSide: 1568,
    ...changes,
  };
}

/**
 * A picture fetcher with these settings and a decoder of its own, logging to a capture nobody
 * reads unless `deps` gives a logger.
 */
export function testPictureFetcher(
  changes: Partial<MediaTestSettings> = {},
  deps: Partial<PictureFetcherDeps> = {},
) {
  const settings = () => fetchSettings(changes);
  return createPictureFetcher({
    settings,
    decoder: new PictureDecoder({ settings }),
    logger: new LogCapture().logger(),
    ...deps,
  });
}

/** What the bot makes of these bytes with the default settings (a GIF: its first frame as a PNG). */
export async function decodedPicture(bytes: Buffer): Promise<FetchedPicture> {
  const decoded = await new PictureDecoder({ settings: () => fetchSettings() }).decode(bytes);
  if (!decoded.ok) throw new Error(decoded.reason);
  return decoded.picture;
}

/** The reason a fetch failed; throws when it returned a picture. */
export function failureReason(result: PictureFetch): string {
  if (result.ok) throw new Error(`expected the fetch to fail, it returned ${result.picture.mime}`);
  return result.reason;
}
