// A worker thread's module (see util/off-thread.ts): decodes one SILK voice message to PCM.
import { serveOffThread } from "../util/off-thread.ts";

export interface SilkDecodeInput {
  bytes: Uint8Array;
  sampleRate: number;
  /** Refused above this, so the answer copied back to the bot stays bounded. */
  maxPcmBytes: number;
}

export interface SilkDecodeResult {
  /** Signed 16-bit little-endian mono samples. */
  pcm: Uint8Array;
  durationMs: number;
}

serveOffThread<SilkDecodeInput, SilkDecodeResult>(async ({ bytes, sampleRate, maxPcmBytes }) => {
  const { decode } = await import("silk-wasm");
  const decoded = await decode(bytes, sampleRate);
  if (decoded.data.length > maxPcmBytes) {
    throw new Error(`decodes to ${decoded.data.length} bytes, over ${maxPcmBytes}`);
  }
  return { pcm: decoded.data, durationMs: decoded.duration };
});
