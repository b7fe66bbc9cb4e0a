import { Type } from "@sinclair/typebox";
import type { ChatAdapter } from "../adapters/types.ts";
import type { Logger } from "../log/logger.ts";
import type { Segment } from "../message/segment.ts";
import { isSegment } from "../message/segment-guards.ts";
import { ajvOnFirstUse, checkOnFirstUse } from "../schema/compile-on-first-use.ts";
import { errorMessage } from "../util/values.ts";
import type { MediaSettings } from "./config.ts";
import { untilAborted } from "./picture-fetcher.ts";
import { type HostResolver, systemResolver, tooLargeReason, vettedGet } from "./vetted-get.ts";
import { isAmr, type PlayableAudio, playableAudio } from "./voice-audio.ts";

export type VoiceFetch = { ok: true; audio: PlayableAudio } | { ok: false; reason: string };

/** Asks the OneBot implementation for a voice message's audio as WAV; answers `get_record`'s `data`. */
export type GetRecord = (fileId: string, timeoutMs: number) => Promise<unknown>;

export interface VoiceFetchDeps {
  /** The keys of `media` that fetching reads: the limits pictures are fetched with. */
  settings: () => Pick<MediaSettings, "allowPrivateNetworks" | "maxBytes" | "timeoutMs">;
  /** OneBot `get_record` of the chat's account ({@link oneBotGetRecord}); without it a bare file id is not fetched. */
  getRecord?: GetRecord;
  logger: Logger;
  /** How host names become addresses; the system's unless a test names hosts of its own. */
  resolveHost?: HostResolver;
}

/** Fetches the voice messages of one account's chats (the console's player, transcription). */
export type VoiceFetcher = (source: VoiceSource, signal?: AbortSignal) => Promise<VoiceFetch>;

const INLINE_PREFIX = "base64://";

/**
 * Where a `record` segment's audio is: bytes it carried itself, or its http(s) URL and the
 * implementation's file id (`get_record` converts that one when the URL's bytes are no audio
 * the bot decodes, such as AMR).
 */
export type VoiceSource = { inline: Buffer } | { url?: string; fileId?: string };

/** The audio of `segment` when it is a voice message (`record`) with something to fetch. */
export function voiceSourceOf(segment: Segment | undefined): VoiceSource | undefined {
  if (!isSegment(segment, "record")) return undefined;
  const { file, url } = segment.data;
  if (file.startsWith(INLINE_PREFIX))
    return { inline: Buffer.from(file.slice(INLINE_PREFIX.length), "base64") };
  const remote = [url, file].find((value) => value !== undefined && isHttpUrl(value));
  const fileId = file !== "" && !isHttpUrl(file) ? file : undefined;
  if (remote === undefined && fileId === undefined) return undefined;
  return { ...(remote === undefined ? {} : { url: remote }), ...(fileId === undefined ? {} : { fileId }) };
}

/** `get_record` as a OneBot action of one account, asking for WAV (NapCat converts with its ffmpeg). */
export function oneBotGetRecord(adapter: ChatAdapter, selfId: string): GetRecord {
  return (fileId, timeoutMs) =>
    adapter.callAction(selfId, "get_record", { file: fileId, out_format: "wav" }, { timeoutMs });
}

/** A voice fetcher with these limits and, when given, the account's `get_record`. */
export function createVoiceFetcher(deps: VoiceFetchDeps): VoiceFetcher {
  return (source, signal) => fetchVoice(source, deps, signal);
}

/**
 * A voice message's audio, fetched the way pictures are (vettedGet: no private addresses unless
 * allowed, each redirect checked, the body cut off at `media.maxBytes`, the whole fetch within
 * `media.timeoutMs`), and given only as an audio type its first bytes prove (QQ's SILK decoded
 * to WAV first; AMR converted by `get_record` when the message has a file id). A refusal is
 * logged once, naming only the host (media URLs carry access keys).
 */
export async function fetchVoice(
  source: VoiceSource,
  deps: VoiceFetchDeps,
  callerSignal?: AbortSignal,
): Promise<VoiceFetch> {
  const { timeoutMs } = deps.settings();
  const deadline = AbortSignal.timeout(timeoutMs);
  const signal = callerSignal ? AbortSignal.any([callerSignal, deadline]) : deadline;
  let result: VoiceFetch;
  try {
    result = await audioOf(source, deps, signal);
  } catch (error) {
    result = { ok: false, reason: signal.aborted ? `timed out after ${timeoutMs} ms` : firstLine(error) };
  }
  if (!result.ok) {
    const host = "url" in source && source.url !== undefined ? URL.parse(source.url)?.host : undefined;
    deps.logger.warn({ host, reason: result.reason }, "voice message not fetched");
  }
  return result;
}

async function audioOf(source: VoiceSource, deps: VoiceFetchDeps, signal: AbortSignal): Promise<VoiceFetch> {
  if ("inline" in source) return playableAudio(source.inline, signal);
  if (source.url !== undefined) {
    const fetched = await get(source.url, deps, signal);
    if (!fetched.ok) return fetched;
    const converted = await playableAudio(fetched.body, signal);
    // Only AMR is worth asking the implementation to convert: anything else is no voice at all.
    if (converted.ok || !isAmr(fetched.body) || source.fileId === undefined || !deps.getRecord) {
      return converted;
    }
  }
  if (source.fileId === undefined || !deps.getRecord) {
    return { ok: false, reason: "no url, and get_record is not available" };
  }
  return fromGetRecord(source.fileId, deps, signal);
}

function get(url: string, deps: VoiceFetchDeps, signal: AbortSignal) {
  const settings = deps.settings();
  return vettedGet(url, {
    allowPrivateNetworks: settings.allowPrivateNetworks,
    maxBytes: settings.maxBytes,
    resolve: deps.resolveHost ?? systemResolver,
    signal,
  });
}

/** NapCat answers `{file, url, file_size, file_name, base64}`; `file` and `url` are local paths there. */
const isRecordAnswer = checkOnFirstUse<{ base64?: string; url?: string }>(
  ajvOnFirstUse({ strict: false }),
  Type.Object({ base64: Type.Optional(Type.String()), url: Type.Optional(Type.String()) }),
);

/** The converted audio `get_record` answers with: its base64, else an http(s) url, fetched as any other. */
async function fromGetRecord(fileId: string, deps: VoiceFetchDeps, signal: AbortSignal): Promise<VoiceFetch> {
  const { timeoutMs, maxBytes } = deps.settings();
  const answer = await untilAborted(deps.getRecord!(fileId, timeoutMs), signal);
  if (!isRecordAnswer(answer)) return { ok: false, reason: "get_record answered without base64 or url" };
  if (answer.base64 !== undefined && answer.base64 !== "") {
    // Base64 holds three bytes in four characters: check the size before decoding.
    const size = Math.floor((answer.base64.length * 3) / 4);
    if (size > maxBytes) return { ok: false, reason: tooLargeReason(maxBytes, size) };
    return playableAudio(Buffer.from(answer.base64, "base64"), signal);
  }
  if (answer.url !== undefined && isHttpUrl(answer.url)) {
    const fetched = await get(answer.url, deps, signal);
    return fetched.ok ? playableAudio(fetched.body, signal) : fetched;
  }
  return { ok: false, reason: "get_record gave no base64 or http(s) url" };
}

function isHttpUrl(text: string): boolean {
  return /^https?:\/\//i.test(text);
}

function firstLine(error: unknown): string {
  return errorMessage(error).split("\n")[0]!;
}
