import type { Logger } from "../log/logger.ts";
import type { Segment } from "../message/segment.ts";
import { isSegment } from "../message/segment-guards.ts";
import { errorMessage } from "../util/values.ts";
import type { MediaSettings } from "./config.ts";
import { type HostResolver, systemResolver, vettedGet } from "./vetted-get.ts";

/** The audio types a browser plays, told by magic bytes (never by what a server claimed). */
export type AudioMime = "audio/wav" | "audio/ogg" | "audio/mpeg" | "audio/flac" | "audio/mp4" | "audio/webm";

export type VoiceFetch = { ok: true; bytes: Buffer; mime: AudioMime } | { ok: false; reason: string };

export interface VoiceFetchDeps {
  /** The keys of `media` that fetching reads: the limits pictures are fetched with. */
  settings: Pick<MediaSettings, "allowPrivateNetworks" | "maxBytes" | "timeoutMs">;
  logger: Logger;
  /** How host names become addresses; the system's unless a test names hosts of its own. */
  resolveHost?: HostResolver;
}

const INLINE_PREFIX = "base64://";

/** Where a `record` segment's audio is: bytes it carried itself, or an http(s) URL. */
export type VoiceSource = { inline: Buffer } | { url: string };

/** The audio of `segment` when it is a voice message (`record`) with something to play. */
export function voiceSourceOf(segment: Segment | undefined): VoiceSource | undefined {
  if (!isSegment(segment, "record")) return undefined;
  const { file, url } = segment.data;
  if (file.startsWith(INLINE_PREFIX))
    return { inline: Buffer.from(file.slice(INLINE_PREFIX.length), "base64") };
  const remote = [url, file].find((value) => value !== undefined && /^https?:\/\//i.test(value));
  return remote === undefined ? undefined : { url: remote };
}

/**
 * A voice message's audio, fetched the way pictures are (vettedGet: no private addresses unless
 * allowed, each redirect checked, the body cut off at `media.maxBytes`, the whole fetch within
 * `media.timeoutMs`), and served only as an audio type its first bytes prove. A refusal is
 * logged once, naming only the host (media URLs carry access keys).
 */
export async function fetchVoice(source: VoiceSource, deps: VoiceFetchDeps): Promise<VoiceFetch> {
  const result = await audioOf(source, deps);
  if (!result.ok) {
    const host = "url" in source ? URL.parse(source.url)?.host : undefined;
    deps.logger.warn({ host, reason: result.reason }, "voice message not fetched");
  }
  return result;
}

async function audioOf(source: VoiceSource, deps: VoiceFetchDeps): Promise<VoiceFetch> {
  let bytes: Buffer;
  if ("inline" in source) bytes = source.inline;
  else {
    const { settings } = deps;
    try {
      const fetched = await vettedGet(source.url, {
        allowPrivateNetworks: settings.allowPrivateNetworks,
        maxBytes: settings.maxBytes,
        resolve: deps.resolveHost ?? systemResolver,
        signal: AbortSignal.timeout(settings.timeoutMs),
      });
      if (!fetched.ok) return fetched;
      bytes = fetched.body;
    } catch (error) {
      return { ok: false, reason: errorMessage(error).split("\n")[0]! };
    }
  }
  const mime = sniffAudioMime(bytes);
  if (mime === undefined) return { ok: false, reason: "not a playable audio type" };
  return { ok: true, bytes, mime };
}

/** The audio type `bytes` start with; undefined for anything else (QQ's SILK and AMR too: browsers cannot play them). */
export function sniffAudioMime(bytes: Buffer): AudioMime | undefined {
  const ascii = (start: number, end: number) => bytes.toString("latin1", start, end);
  if (ascii(0, 4) === "RIFF" && ascii(8, 12) === "WAVE") return "audio/wav";
  if (ascii(0, 4) === "OggS") return "audio/ogg";
  if (ascii(0, 4) === "fLaC") return "audio/flac";
  if (ascii(4, 8) === "ftyp") return "audio/mp4";
  if (bytes.subarray(0, 4).equals(WEBM_SIGNATURE)) return "audio/webm";
  // An ID3 tag, or an MPEG audio frame's 11 sync bits.
  if (ascii(0, 3) === "ID3" || (bytes.length >= 2 && bytes[0] === 0xff && (bytes[1]! & 0xe0) === 0xe0)) {
    return "audio/mpeg";
  }
  return undefined;
}

const WEBM_SIGNATURE = Buffer.from([0x1a, 0x45, 0xdf, 0xa3]);
