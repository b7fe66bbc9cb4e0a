/**
 * The audio container a voice segment's bytes start with, or undefined when they are not
 * audio any OneBot implementation we target converts for QQ (NapCat and LLOneBot accept
 * these and transcode them to SILK).
 */
export function audioFormat(bytes: Uint8Array): string | undefined {
  const ascii = (start: number, end: number) => String.fromCharCode(...bytes.subarray(start, end));
  if (ascii(0, 4) === "RIFF" && ascii(8, 12) === "WAVE") return "wav";
  if (ascii(0, 4) === "OggS") return "ogg";
  if (ascii(0, 4) === "fLaC") return "flac";
  if (ascii(0, 5) === "#!AMR") return "amr";
  if (ascii(0, 6) === "#!SILK" || ascii(1, 7) === "#!SILK") return "silk";
  if (ascii(4, 8) === "ftyp") return "m4a";
  if (ascii(0, 3) === "ID3") return "mp3";
  // An MPEG audio frame starts with 11 set sync bits.
  if (bytes.length >= 2 && bytes[0] === 0xff && (bytes[1]! & 0xe0) === 0xe0) return "mp3";
  return undefined;
}
