import { deflateSync } from "node:zlib";
import sharp from "sharp";
import { PNG_SIGNATURE } from "../../src/media/picture-type.ts";

/**
 * Real picture bytes for tests: tiny valid PNG, JPEG and WebP files, an RGBA PNG writer, a GIF
 * writer (real LZW compression, several frames, transparency, interlacing), a GIF frame bomb,
 * and a reader of any picture's pixels.
 */

/** A 1×1 red PNG. */
export const PNG_1X1 = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC",
  "base64",
);

/** A 2×2 orange baseline JPEG (made by Chromium, its colour profile removed). */
export const JPEG_2X2 = Buffer.from(
  "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAMCAgMCAgMDAwMEAwMEBQgFBQQEBQoHBwYIDAoMDAsKCwsNDhIQDQ4RDgsLEBYQERMUFRUVDA8XGBYUGBIUFRT/2wBDAQMEBAUEBQkFBQkUDQsNFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBT/wAARCAACAAIDASIAAhEBAxEB/8QAFQABAQAAAAAAAAAAAAAAAAAAAAb/xAAUEAEAAAAAAAAAAAAAAAAAAAAA/8QAFAEBAAAAAAAAAAAAAAAAAAAACP/EABQRAQAAAAAAAAAAAAAAAAAAAAD/2gAMAwEAAhEDEQA/AL0AHDFf/9k=",
  "base64",
);

/** A 2×2 orange lossy WebP (made by Chromium, reduced to its VP8 chunk). */
export const WEBP_2X2 = Buffer.from(
  "UklGRkAAAABXRUJQVlA4IDQAAAAQAgCdASoCAAIAAMASJaACdLoB+AH6AAPIAP7vPW//dRLO8+I/91Ff/rzAQu4d/660AAAA",
  "base64",
);

export type Rgb = [number, number, number];

export interface GifFrame {
  left?: number;
  top?: number;
  width: number;
  height: number;
  /** Colour indices, row by row. */
  pixels: number[];
  transparentIndex?: number;
  interlaced?: boolean;
}

/** A GIF89a of these frames with one global colour table (at most 256 colours). */
export function buildGif(
  screen: { width: number; height: number },
  palette: Rgb[],
  frames: GifFrame[],
): Buffer {
  const bits = Math.max(1, Math.ceil(Math.log2(palette.length)));
  const table = Buffer.alloc(3 << bits);
  for (const [index, colour] of palette.entries()) table.set(colour, index * 3);
  const parts: Buffer[] = [Buffer.from("GIF89a", "latin1"), u16(screen.width), u16(screen.height)];
  parts.push(Buffer.from([0x80 | (bits - 1), 0, 0]), table);
  for (const frame of frames) {
    const transparent = frame.transparentIndex !== undefined;
    parts.push(Buffer.from([0x21, 0xf9, 4, transparent ? 1 : 0, 10, 0, frame.transparentIndex ?? 0, 0]));
    parts.push(
      Buffer.from([0x2c]),
      u16(frame.left ?? 0),
      u16(frame.top ?? 0),
      u16(frame.width),
      u16(frame.height),
    );
    parts.push(Buffer.from([frame.interlaced ? 0x40 : 0]));
    const rows = frame.interlaced ? interlacedRows(frame.height) : [...Array(frame.height).keys()];
    const ordered = rows.flatMap((row) => frame.pixels.slice(row * frame.width, (row + 1) * frame.width));
    const minCodeSize = Math.max(2, bits);
    parts.push(Buffer.from([minCodeSize]), subBlocks(lzwEncode(ordered, minCodeSize)));
  }
  parts.push(Buffer.from([0x3b]));
  return Buffer.concat(parts);
}

/** An 8-bit RGBA PNG of `rgba` (width × height × 4 bytes, rows top to bottom), filter 0 on every row. */
export function encodeRgbaPng(width: number, height: number, rgba: Uint8Array): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 6, 0, 0, 0], 8); // bit depth 8, colour type 6 (RGBA), deflate, no filter choice, not interlaced
  const stride = width * 4;
  const rows = Buffer.alloc((stride + 1) * height); // each row: filter type 0, then its pixels
  for (let y = 0; y < height; y++)
    rows.set(rgba.subarray(y * stride, (y + 1) * stride), y * (stride + 1) + 1);
  return Buffer.concat([
    PNG_SIGNATURE,
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(rows)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

function chunk(type: string, data: Buffer): Buffer {
  const typeAndData = Buffer.concat([Buffer.from(type, "latin1"), data]);
  const framed = Buffer.alloc(8 + data.length + 4);
  framed.writeUInt32BE(data.length, 0);
  typeAndData.copy(framed, 4);
  framed.writeUInt32BE(crc32(typeAndData), 8 + data.length);
  return framed;
}

// zlib.crc32 only exists from Node 20.15; the package supports every Node 20.
const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = CRC_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** Width, height and RGBA pixels (4 bytes each, rows top to bottom) of a picture, read with sharp. */
export async function rgbaOf(picture: Buffer): Promise<{ width: number; height: number; rgba: Buffer }> {
  const { data, info } = await sharp(picture).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, rgba: data };
}

/**
 * A GIF frame bomb: a tiny logical screen and one frame of `frame` pixels of one colour, its LZW
 * data as short as GIF allows (~0.4 MB for 65535×16384, a billion pixels). Written code by code,
 * never holding the pixels.
 */
export function gifFrameBomb(
  screen = { width: 1, height: 1 },
  frame = { width: 65_535, height: 16_384 },
): Buffer {
  // Colour index 0 only, minimum code size 2: clear code 4, end code 5, first new code 6.
  // Each new code is the previous run plus one pixel (the code just being defined, read
  // as "previous + its own first index"); once 4096 codes exist, the longest is repeated.
  const codes = new LzwCodes();
  let codeSize = 3;
  let nextCode = 6;
  const write = (code: number) => codes.write(code, codeSize);
  const runOf = (code: number) => (code < 4 ? 1 : code - 4);
  write(4);
  write(0);
  for (let left = frame.width * frame.height - 1; left > 0; ) {
    const longest = Math.min(nextCode, 4095);
    const code = runOf(longest) <= left ? longest : left >= 2 ? left + 4 : 0;
    write(code);
    left -= runOf(code);
    if (nextCode < 4096) {
      nextCode++;
      if (nextCode === 1 << codeSize && codeSize < 12) codeSize++;
    }
  }
  write(5);
  return Buffer.concat([
    Buffer.from("GIF89a", "latin1"),
    u16(screen.width),
    u16(screen.height),
    Buffer.from([0x81, 0, 0]), // a global table of 4 colours
    Buffer.alloc(12),
    Buffer.from([0x2c]),
    u16(0),
    u16(0),
    u16(frame.width),
    u16(frame.height),
    Buffer.from([0, 2]),
    subBlocks(codes.bytes()),
    Buffer.from([0x3b]),
  ]);
}

function u16(value: number): Buffer {
  const buffer = Buffer.alloc(2);
  buffer.writeUInt16LE(value);
  return buffer;
}

/** Rows in the order an interlaced GIF stores them: by pass (every 8th from 0, every 8th from 4, every 4th from 2, the odd rows). */
function interlacedRows(height: number): number[] {
  const pass = (row: number) => (row % 8 === 0 ? 0 : row % 8 === 4 ? 1 : row % 4 === 2 ? 2 : 3);
  return [...Array(height).keys()].sort((a, b) => pass(a) - pass(b) || a - b);
}

/** GIF's LZW: variable-width codes (least significant bit first), growing as the dictionary does. */
function lzwEncode(indices: number[], minCodeSize: number): Buffer {
  const clearCode = 1 << minCodeSize;
  const dictionary = new Map<string, number>();
  let nextCode = clearCode + 2;
  let codeSize = minCodeSize + 1;
  const codes = new LzwCodes();
  const write = (code: number) => codes.write(code, codeSize);
  const codeOf = (key: string) => dictionary.get(key) ?? Number(key);

  write(clearCode);
  let current = String(indices[0]);
  for (const index of indices.slice(1)) {
    const candidate = `${current},${index}`;
    if (dictionary.has(candidate)) {
      current = candidate;
      continue;
    }
    write(codeOf(current));
    if (nextCode < 4096) dictionary.set(candidate, nextCode++);
    // The reader learns each entry one code later, so it widens one code after the writer adds 2^size.
    if (nextCode > 1 << codeSize && codeSize < 12) codeSize++;
    current = String(index);
  }
  write(codeOf(current));
  write(clearCode + 1);
  return codes.bytes();
}

/** GIF's LZW code stream: codes of a given width packed into bytes, least significant bit first. */
class LzwCodes {
  readonly #bytes: number[] = [];
  #bitBuffer = 0;
  #bitCount = 0;

  write(code: number, width: number): void {
    this.#bitBuffer |= code << this.#bitCount;
    this.#bitCount += width;
    while (this.#bitCount >= 8) {
      this.#bytes.push(this.#bitBuffer & 0xff);
      this.#bitBuffer >>>= 8;
      this.#bitCount -= 8;
    }
  }

  /** The bytes written, the last one padded with zero bits. */
  bytes(): Buffer {
    const tail = this.#bitCount > 0 ? [this.#bitBuffer & 0xff] : [];
    return Buffer.from([...this.#bytes, ...tail]);
  }
}

function subBlocks(data: Buffer): Buffer {
  const parts: Buffer[] = [];
  for (let start = 0; start < data.length; start += 255) {
    const block = data.subarray(start, start + 255);
    parts.push(Buffer.from([block.length]), block);
  }
  parts.push(Buffer.from([0]));
  return Buffer.concat(parts);
}
