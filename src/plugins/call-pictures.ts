import { fetchKeyedPicture, picturesOf } from "../media/picture-refs.ts";
import type { PictureFetcher } from "../media/types.ts";
import type { ChatMessage } from "../message/inbound.ts";
import type { PictureTexts } from "../message/picture-text.ts";
import type { PictureBytes, PluginPicture } from "../sdk/types.ts";

/**
 * The pictures of the message a plugin call is for: kind, file id, the turn's description
 * (read when the plugin reads it: a tool runs after the turn's pictures are described) and a
 * fetch through the account's fetcher, with every limit of the bot's own fetches.
 */
export function callPictures(
  message: ChatMessage,
  fetcher: PictureFetcher,
  signal: AbortSignal,
  descriptions: PictureTexts | undefined,
): PluginPicture[] {
  return picturesOf([message.segments]).map((picture) => ({
    kind: picture.ref.kind,
    // An inline picture's stand-in id (`inline:<hash>`) is the bot's own, no platform's.
    ...(picture.ref.fileId === undefined || picture.inline !== undefined
      ? {}
      : { fileId: picture.ref.fileId }),
    get description() {
      return descriptions?.get(picture.key)?.description;
    },
    async fetch(): Promise<PictureBytes> {
      const fetched = await fetchKeyedPicture(picture, fetcher, signal);
      if (!fetched.ok) throw new Error(`the picture could not be fetched: ${fetched.reason}`);
      return fetched.picture;
    },
  }));
}
