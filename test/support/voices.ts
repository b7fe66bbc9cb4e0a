/** Voice messages as QQ sends them: SILK encoded here from a generated tone, with silk-wasm. */
import { encode } from "silk-wasm";

const RATE = 24_000;

/** A mono 16-bit PCM sine tone of `seconds` at 24 kHz. */
export function tonePcm(seconds: number, frequency = 440): Buffer {
  const samples = Math.round(seconds * RATE);
  const pcm = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++) {
    pcm.writeInt16LE(Math.round(8_000 * Math.sin((2 * Math.PI * frequency * i) / RATE)), i * 2);
  }
  return pcm;
}

/** A tone as a QQ voice message's SILK file (starting `\x02#!SILK_V3`, as QQ's do). */
export async function silkTone(seconds = 1, frequency = 440): Promise<Buffer> {
  return Buffer.from((await encode(tonePcm(seconds, frequency), RATE)).data);
}
