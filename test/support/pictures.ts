import { inflateSync } from "node:zlib";

/**
 * Real picture bytes for tests: tiny valid PNG, JPEG and WebP files, a GIF writer (real LZW
 * compression, several frames, transparency, interlacing) and a reader for the RGBA PNGs the
 * bot makes of a GIF's first frame.
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

/** Width, height and RGBA pixels of an 8-bit RGBA, non-interlaced PNG using filter 0 (what the bot writes). */
export function readRgbaPng(png: Buffer): { width: number; height: number; rgba: Buffer } {
  let width = 0;
  let height = 0;
  const data: Buffer[] = [];
  for (let position = 8; position < png.length; ) {
    const length = png.readUInt32BE(position);
    const type = png.toString("latin1", position + 4, position + 8);
    const body = png.subarray(position + 8, position + 8 + length);
    if (type === "IHDR") {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      if (body[8] !== 8 || body[9] !== 6) throw new Error("not an 8-bit RGBA PNG");
    }
    if (type === "IDAT") data.push(body);
    position += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(data));
  const stride = width * 4;
  const rgba = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    if (raw[y * (stride + 1)] !== 0) throw new Error("PNG row uses a filter");
    raw.copy(rgba, y * stride, y * (stride + 1) + 1, (y + 1) * (stride + 1));
  }
  return { width, height, rgba };
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
  const bytes: number[] = [];
  let bitBuffer = 0;
  let bitCount = 0;
  const write = (code: number) => {
    bitBuffer |= code << bitCount;
    bitCount += codeSize;
    while (bitCount >= 8) {
      bytes.push(bitBuffer & 0xff);
      bitBuffer >>>= 8;
      bitCount -= 8;
    }
  };
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
  if (bitCount > 0) bytes.push(bitBuffer & 0xff);
  return Buffer.from(bytes);
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
