import { type Static, Type } from "@sinclair/typebox";
import { count, group, milliseconds } from "../schema/fields.ts";
import { imagesSchema } from "./image-config.ts";
import { speechSchema } from "./speech-config.ts";
import { ttsSchema } from "./tts-config.ts";
import { visionSchema } from "./vision-config.ts";

export const mediaSchema = group("Fetching pictures, stickers and voice messages that arrive in chats.", {
  allowPrivateNetworks: Type.Boolean({
    default: false,
    description:
      "Fetch media from private, loopback and link-local addresses too (a OneBot implementation serving media on this machine or LAN).",
  }),
  allowLocalFiles: Type.Boolean({
    default: false,
    description:
      "Read a local file path that get_image answers with (the OneBot implementation runs on this machine).",
  }),
  maxBytes: count("Largest picture fetched, in bytes", 10 * 1024 * 1024),
  timeoutMs: milliseconds("Limit for one whole fetch, redirects and decoding included", 10_000),
  maxVisionSide: count(
    "Longest side, in pixels, of a picture shown to a model or the console; a longer one is scaled down (fewer image tokens)",
    1568,
    64,
  ),
  vision: visionSchema,
  speech: speechSchema,
  tts: ttsSchema,
  images: imagesSchema,
});

/** `media` of the config. */
export type MediaSettings = Static<typeof mediaSchema>;
