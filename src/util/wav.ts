/**
 * A WAV file with its RIFF and data sizes set from its bytes. Speech servers that stream
 * (OpenAI's `/audio/speech`, espeak-ng to a pipe) cannot go back to fill them in and write
 * placeholders (0 or 0xFFFFFFFF); players that trust them read past the end. Undefined when
 * the bytes are not a WAV file with audio data.
 */
export function wavWithSizes(wav: Buffer): Buffer | undefined {
  if (wav.length < 12 || wav.toString("ascii", 0, 4) !== "RIFF" || wav.toString("ascii", 8, 12) !== "WAVE") {
    return undefined;
  }
  let offset = 12;
  while (offset + 8 <= wav.length) {
    const size = wav.readUInt32LE(offset + 4);
    if (wav.toString("ascii", offset, offset + 4) === "data") {
      if (wav.length - offset - 8 <= 0) return undefined;
      const fixed = Buffer.from(wav);
      fixed.writeUInt32LE(wav.length - 8, 4);
      fixed.writeUInt32LE(wav.length - offset - 8, offset + 4);
      return fixed;
    }
    offset += 8 + size + (size % 2);
  }
  return undefined;
}

/** How long a PCM WAV file plays, in milliseconds, from its byte rate and data size; undefined when unreadable. */
export function wavDurationMs(wav: Buffer): number | undefined {
  const fixed = wavWithSizes(wav);
  if (!fixed || fixed.length < 36) return undefined;
  const byteRate = fixed.readUInt32LE(28);
  let offset = 12;
  while (offset + 8 <= fixed.length) {
    const size = fixed.readUInt32LE(offset + 4);
    if (fixed.toString("ascii", offset, offset + 4) === "data") {
      return byteRate > 0 ? Math.round((size / byteRate) * 1000) : undefined;
    }
    offset += 8 + size + (size % 2);
  }
  return undefined;
}
