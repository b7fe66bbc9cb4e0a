import { encodeRgbaPng } from "./png-encode.ts";

/**
 * The first frame of a GIF as a PNG: vision models read one still picture, and several of
 * them refuse animated GIFs. The frame is drawn onto the GIF's logical screen (transparent
 * where it does not cover), as a browser shows it before the animation starts. Throws an
 * Error with a one-line reason for a GIF it cannot read.
 */
export function gifFirstFrameAsPng(gif: Buffer): Buffer {
  const reader = new ByteReader(gif);
  reader.skip(6); // "GIF87a" / "GIF89a", checked by the caller
  const screenWidth = reader.u16();
  const screenHeight = reader.u16();
  if (screenWidth === 0 || screenHeight === 0) throw new Error("GIF has an empty screen");
  if (screenWidth * screenHeight > MAX_PIXELS)
    throw new Error(`GIF too large to convert (${screenWidth}×${screenHeight})`);
  const screenFlags = reader.u8();
  reader.skip(2); // background colour index and aspect ratio: the canvas starts transparent
  const globalColours = screenFlags & 0x80 ? reader.bytes(3 << ((screenFlags & 7) + 1)) : undefined;

  let transparentIndex: number | undefined;
  for (;;) {
    const introducer = reader.u8();
    if (introducer === 0x3b) throw new Error("GIF has no frame");
    if (introducer === 0x21) {
      const label = reader.u8();
      const data = reader.subBlocks();
      // Graphic control extension: flags, delay (2 bytes), transparent colour index.
      if (label === 0xf9 && data.length >= 4) transparentIndex = data[0]! & 1 ? data[3] : undefined;
      continue;
    }
    if (introducer !== 0x2c) throw new Error(`GIF has an unknown block 0x${introducer.toString(16)}`);
    const frame = { left: reader.u16(), top: reader.u16(), width: reader.u16(), height: reader.u16() };
    const frameFlags = reader.u8();
    const colours = frameFlags & 0x80 ? reader.bytes(3 << ((frameFlags & 7) + 1)) : globalColours;
    if (!colours) throw new Error("GIF frame has no colour table");
    const minCodeSize = reader.u8();
    const indices = decodeLzw(reader.subBlocks(), minCodeSize, frame.width * frame.height);
    const rows = frameFlags & 0x40 ? interlacedRowOrder(frame.height) : undefined;

    const rgba = new Uint8Array(screenWidth * screenHeight * 4);
    for (let row = 0; row < frame.height; row++) {
      const y = frame.top + (rows ? rows[row]! : row);
      if (y >= screenHeight) continue;
      for (let column = 0; column < frame.width; column++) {
        const x = frame.left + column;
        const index = indices[row * frame.width + column]!;
        if (x >= screenWidth || index === transparentIndex || index * 3 + 2 >= colours.length) continue;
        rgba.set(
          [colours[index * 3]!, colours[index * 3 + 1]!, colours[index * 3 + 2]!, 255],
          (y * screenWidth + x) * 4,
        );
      }
    }
    return encodeRgbaPng(screenWidth, screenHeight, rgba);
  }
}

/** 16 megapixels: 64 MB of RGBA, far beyond any sticker. */
const MAX_PIXELS = 4096 * 4096;

/** Colour indices of a frame from its LZW data (variable-width codes, least significant bit first). */
function decodeLzw(data: Buffer, minCodeSize: number, pixelCount: number): Uint8Array {
  if (minCodeSize < 2 || minCodeSize > 8) throw new Error(`GIF has a bad LZW code size ${minCodeSize}`);
  const clearCode = 1 << minCodeSize;
  const endCode = clearCode + 1;
  // The dictionary: each code is a previous code plus one index; `first` is its first index.
  const prefix = new Int16Array(4096);
  const suffix = new Uint8Array(4096);
  const first = new Uint8Array(4096);
  for (let code = 0; code < clearCode; code++) {
    suffix[code] = code;
    first[code] = code;
  }
  const output = new Uint8Array(pixelCount);
  const stack = new Uint8Array(4096);
  let written = 0;
  let codeSize = minCodeSize + 1;
  let nextCode = clearCode + 2;
  let previous = -1;
  let bitBuffer = 0;
  let bitCount = 0;

  for (let position = 0; position < data.length && written < pixelCount; ) {
    while (bitCount < codeSize && position < data.length) {
      bitBuffer |= data[position++]! << bitCount;
      bitCount += 8;
    }
    if (bitCount < codeSize) break;
    const code = bitBuffer & ((1 << codeSize) - 1);
    bitBuffer >>>= codeSize;
    bitCount -= codeSize;

    if (code === clearCode) {
      codeSize = minCodeSize + 1;
      nextCode = clearCode + 2;
      previous = -1;
      continue;
    }
    if (code === endCode) break;
    if (previous === -1) {
      if (code >= clearCode) throw new Error("GIF has corrupt LZW data");
      output[written++] = code;
      previous = code;
      continue;
    }
    if (code > nextCode) throw new Error("GIF has corrupt LZW data");
    if (nextCode < 4096) {
      // A code not yet known (code === nextCode) is the previous string plus its own first index.
      prefix[nextCode] = previous;
      suffix[nextCode] = code === nextCode ? first[previous]! : first[code]!;
      first[nextCode] = first[previous]!;
      nextCode++;
      if (nextCode === 1 << codeSize && codeSize < 12) codeSize++;
    }
    let depth = 0;
    for (let walk = code; ; walk = prefix[walk]!) {
      stack[depth++] = suffix[walk]!;
      if (walk < clearCode) break;
    }
    while (depth > 0 && written < pixelCount) output[written++] = stack[--depth]!;
    previous = code;
  }
  return output;
}

/** Where each stored row of an interlaced frame goes: rows 0, 8, 16…, then 4, 12…, then 2, 6…, then 1, 3…. */
function interlacedRowOrder(height: number): number[] {
  const order: number[] = [];
  for (const [start, step] of [
    [0, 8],
    [4, 8],
    [2, 4],
    [1, 2],
  ] as const) {
    for (let row = start; row < height; row += step) order.push(row);
  }
  return order;
}

class ByteReader {
  #position = 0;
  constructor(private readonly buffer: Buffer) {}

  u8(): number {
    this.#need(1);
    return this.buffer[this.#position++]!;
  }

  u16(): number {
    this.#need(2);
    const value = this.buffer.readUInt16LE(this.#position);
    this.#position += 2;
    return value;
  }

  bytes(length: number): Buffer {
    this.#need(length);
    const slice = this.buffer.subarray(this.#position, this.#position + length);
    this.#position += length;
    return slice;
  }

  skip(length: number): void {
    this.bytes(length);
  }

  /** Data sub-blocks (length byte, then that many bytes) up to the empty one, joined. */
  subBlocks(): Buffer {
    const parts: Buffer[] = [];
    for (let length = this.u8(); length > 0; length = this.u8()) parts.push(this.bytes(length));
    return Buffer.concat(parts);
  }

  #need(length: number): void {
    if (this.#position + length > this.buffer.length) throw new Error("GIF is cut short");
  }
}
