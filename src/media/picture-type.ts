import type { PictureMime } from "./types.ts";

/** The picture type `bytes` start with, by magic bytes (never by what a server claimed). */
export function sniffPictureMime(bytes: Buffer): PictureMime | undefined {
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return "image/jpeg";
  if (bytes.subarray(0, 8).equals(PNG_SIGNATURE)) return "image/png";
  const head = bytes.toString("latin1", 0, 12);
  if (head.startsWith("GIF87a") || head.startsWith("GIF89a")) return "image/gif";
  if (head.startsWith("RIFF") && head.slice(8, 12) === "WEBP") return "image/webp";
  return undefined;
}

export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Why `bytes` are refused: how they begin, as text when printable (`"<!DOCTYPE h"`), else in hex. */
export function notAPictureReason(bytes: Buffer): string {
  const head = bytes.subarray(0, 12);
  if (head.length === 0) return "not a picture (empty)";
  const text = head.toString("latin1");
  const start = /^[\x20-\x7e\t\r\n]+$/.test(text)
    ? JSON.stringify(text)
    : head.toString("hex").replace(/(..)(?!$)/g, "$1 ");
  return `not a picture (starts with ${start})`;
}
