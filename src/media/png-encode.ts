import { deflateSync } from "node:zlib";
import { PNG_SIGNATURE } from "./picture-type.ts";

/** An 8-bit RGBA PNG of `rgba` (width × height × 4 bytes, rows top to bottom). */
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
