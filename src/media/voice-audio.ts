import { type OffThreadLimits, offThreadEntry, runOffThread } from "../util/off-thread.ts";
import type { SilkDecodeInput, SilkDecodeResult } from "./silk-decode-worker.ts";

/** The audio types a browser plays, told by magic bytes (never by what a server claimed). */
export type AudioMime = "audio/wav" | "audio/ogg" | "audio/mpeg" | "audio/flac" | "audio/mp4" | "audio/webm";

/** The rate QQ's SILK voice is decoded at (its encoders use 24 kHz). */
const SILK_SAMPLE_RATE = 24_000;
/**
 * The longest SILK decoded, counted from its packets before anything is decoded (QQ sends
 * voice messages of a minute at most; each packet is 20 ms as QQ's encoders write them).
 */
export const MAX_SILK_SECONDS = 180;
const SILK_PACKET_MS = 20;
const MAX_SILK_PACKETS = (MAX_SILK_SECONDS * 1000) / SILK_PACKET_MS;
/**
 * The decoded PCM may be at most this large: a packet holds up to five 20 ms frames, so a
 * file within {@link MAX_SILK_PACKETS} decodes to at most five times its counted length.
 */
export const MAX_SILK_PCM_BYTES = MAX_SILK_SECONDS * 5 * SILK_SAMPLE_RATE * 2;
/** The decoder's worker: a counted file decodes in well under a second; the rest is margin. */
const SILK_DECODE_LIMITS: OffThreadLimits = { timeoutMs: 10_000, maxHeapMb: 64 };

/** Audio a browser plays and a transcription endpoint reads, and how long it lasts when known. */
export interface PlayableAudio {
  bytes: Buffer;
  mime: AudioMime;
  /** Milliseconds; undefined when only decoding the whole file would tell. */
  durationMs?: number;
}

export type AudioConversion = { ok: true; audio: PlayableAudio } | { ok: false; reason: string };

/**
 * Voice bytes as a playable type: QQ's SILK (NapCat names it `.amr` or `.silk`) is decoded to
 * a 24 kHz mono WAV (its length counted first, then decoded in a worker thread with a memory
 * and time limit); WAV, OGG, MP3, FLAC, M4A and WebM pass as they are. AMR and anything else
 * is refused here (NapCat's `get_record` converts it instead).
 */
export async function playableAudio(bytes: Buffer, signal?: AbortSignal): Promise<AudioConversion> {
  if (isSilk(bytes)) {
    const packets = silkPacketCount(bytes);
    if (packets > MAX_SILK_PACKETS) {
      return {
        ok: false,
        reason: `SILK over ${MAX_SILK_SECONDS} s (more than ${MAX_SILK_PACKETS} packets), not decoded`,
      };
    }
    const decoded = await runOffThread<SilkDecodeInput, SilkDecodeResult>(
      offThreadEntry(import.meta.url, "silk-decode-worker"),
      { bytes, sampleRate: SILK_SAMPLE_RATE, maxPcmBytes: MAX_SILK_PCM_BYTES },
      SILK_DECODE_LIMITS,
      signal,
    );
    if (!decoded.ok) return { ok: false, reason: `SILK not decodable: ${decoded.reason}` };
    const pcm = Buffer.from(decoded.value.pcm.buffer, decoded.value.pcm.byteOffset, decoded.value.pcm.length);
    return {
      ok: true,
      audio: { bytes: wavOf(pcm), mime: "audio/wav", durationMs: decoded.value.durationMs },
    };
  }
  const mime = sniffAudioMime(bytes);
  if (mime === undefined) {
    return {
      ok: false,
      reason: isAmr(bytes) ? "AMR audio (not decoded in-process)" : "not a playable audio type",
    };
  }
  return { ok: true, audio: { bytes, mime, ...wavDuration(bytes, mime) } };
}

/** QQ's SILK starts `#!SILK_V3`, after one byte 0x02 in the files QQ itself writes. */
function isSilk(bytes: Buffer): boolean {
  return bytes.toString("latin1", 0, 10).includes("#!SILK");
}

/**
 * How many packets a SILK file holds, walking their 16-bit little-endian lengths (no audio is
 * decoded); counting stops past {@link MAX_SILK_PACKETS}. An empty packet counts: the decoder
 * fills it with 20 ms of concealment, which is how a file of empty packets became 480 MB.
 */
export function silkPacketCount(bytes: Buffer): number {
  let offset = bytes[0] === 0x02 ? 10 : 9;
  let packets = 0;
  while (offset + 2 <= bytes.length && packets <= MAX_SILK_PACKETS) {
    const size = bytes.readUInt16LE(offset);
    // 0xFFFF is the end mark some encoders write.
    if (size === 0xffff) break;
    packets += 1;
    offset += 2 + size;
  }
  return packets;
}

/** AMR voice (older QQ clients): browsers and transcription endpoints read it rarely, so `get_record` converts it. */
export function isAmr(bytes: Buffer): boolean {
  return bytes.toString("latin1", 0, 5) === "#!AMR";
}

/** A 16-bit mono WAV around `pcm` (signed 16-bit little-endian samples at 24 kHz). */
function wavOf(pcm: Uint8Array): Buffer {
  const header = Buffer.alloc(44);
  header.write("RIFF", 0, "latin1");
  header.writeUInt32LE(36 + pcm.length, 4);
  header.write("WAVEfmt ", 8, "latin1");
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(SILK_SAMPLE_RATE, 24);
  header.writeUInt32LE(SILK_SAMPLE_RATE * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write("data", 36, "latin1");
  header.writeUInt32LE(pcm.length, 40);
  return Buffer.concat([header, pcm]);
}

/** A canonical WAV's length from its byte rate and size (the header fields every encoder writes). */
function wavDuration(bytes: Buffer, mime: AudioMime): { durationMs?: number } {
  if (mime !== "audio/wav" || bytes.length < 44) return {};
  const byteRate = bytes.readUInt32LE(28);
  return byteRate > 0 ? { durationMs: Math.round(((bytes.length - 44) / byteRate) * 1000) } : {};
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
