import {
  createPictureFetcher,
  type PictureFetcherDeps,
  type PictureFetchSettings,
} from "../../src/media/picture-fetcher.ts";
import type { PictureFetch } from "../../src/media/types.ts";
import { LogCapture } from "./log-capture.ts";

/** The defaults of `media`'s fetching keys (tsumugi.example.yaml), with these changes. */
export function fetchSettings(changes: Partial<PictureFetchSettings> = {}): PictureFetchSettings {
  return {
    allowPrivateNetworks: false,
    allowLocalFiles: false,
    maxBytes: 10 * 1024 * 1024,
    timeoutMs: 10_000,
    ...changes,
  };
}

/** A picture fetcher with these settings, logging to a capture nobody reads unless `deps` gives a logger. */
export function testPictureFetcher(
  changes: Partial<PictureFetchSettings> = {},
  deps: Partial<PictureFetcherDeps> = {},
) {
  return createPictureFetcher({
    settings: () => fetchSettings(changes),
    logger: new LogCapture().logger(),
    ...deps,
  });
}

/** The reason a fetch failed; throws when it returned a picture. */
export function failureReason(result: PictureFetch): string {
  if (result.ok) throw new Error(`expected the fetch to fail, it returned ${result.picture.mime}`);
  return result.reason;
}
