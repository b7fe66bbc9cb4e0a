import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PictureRef } from "../../src/media/types.ts";
import { LogCapture } from "../support/log-capture.ts";
import { failureReason, type fetchSettings, testPictureFetcher } from "../support/picture-fetching.ts";
import { type PictureServer, startPictureServer } from "../support/picture-server.ts";
import {
  buildGif,
  encodeRgbaPng,
  gifFrameBomb,
  JPEG_2X2,
  PNG_1X1,
  rgbaOf,
  WEBP_2X2,
} from "../support/pictures.ts";

/**
 * Fetching pictures from a real HTTP server on 127.0.0.1. The server is on loopback, so these
 * tests allow private networks; test/media/picture-address.test.ts covers the refusals.
 */

let server: PictureServer;

beforeAll(async () => {
  server = await startPictureServer();
});

afterAll(async () => {
  await server.close();
});

const fetcherWith = (changes: Parameters<typeof fetchSettings>[0] = {}) =>
  testPictureFetcher({ allowPrivateNetworks: true, ...changes });

function image(url: string): PictureRef {
  return { kind: "image", url };
}

describe("fetching a picture a segment points at", () => {
  it.each([
    ["png", PNG_1X1, "image/png"],
    ["jpeg", JPEG_2X2, "image/jpeg"],
    ["webp", WEBP_2X2, "image/webp"],
  ] as const)("returns a %s picture's bytes, type and hash", async (name, bytes, mime) => {
    const url = server.serve(`/ok.${name}`, { body: bytes, contentType: "application/octet-stream" });

    const result = await fetcherWith().fetch(image(url));

    expect(result).toEqual({
      ok: true,
      picture: { bytes, mime, sha256: createHash("sha256").update(bytes).digest("hex") },
    });
  });

  it("turns a GIF into its first frame as a PNG, transparency kept", async () => {
    const red: [number, number, number] = [255, 0, 0];
    const blue: [number, number, number] = [0, 0, 255];
    const green: [number, number, number] = [0, 255, 0];
    // A 4×3 screen; frame 1 covers 3×2 of it at (1, 1) with one transparent pixel; frame 2 is all green.
    const frame1 = [0, 1, 0, 1, 0, 2];
    const gif = buildGif(
      { width: 4, height: 3 },
      [red, blue, green, [0, 0, 0]],
      [
        { left: 1, top: 1, width: 3, height: 2, pixels: frame1, transparentIndex: 2 },
        { width: 4, height: 3, pixels: Array(12).fill(2) },
      ],
    );
    const url = server.serve("/sticker.gif", { body: gif, contentType: "image/gif" });

    const result = await fetcherWith().fetch({ kind: "sticker", url });

    if (!result.ok) throw new Error(result.reason);
    expect(result.picture.mime).toBe("image/png");
    expect(result.picture.sha256).toBe(createHash("sha256").update(result.picture.bytes).digest("hex"));
    const png = await rgbaOf(result.picture.bytes);
    expect([png.width, png.height]).toEqual([4, 3]);
    const pixel = (x: number, y: number) => [...png.rgba.subarray((y * 4 + x) * 4, (y * 4 + x) * 4 + 4)];
    const none = [0, 0, 0, 0];
    expect([0, 1, 2, 3].map((x) => pixel(x, 0))).toEqual([none, none, none, none]);
    expect([0, 1, 2, 3].map((x) => pixel(x, 1))).toEqual([
      none,
      [255, 0, 0, 255],
      [0, 0, 255, 255],
      [255, 0, 0, 255],
    ]);
    expect([0, 1, 2, 3].map((x) => pixel(x, 2))).toEqual([none, [0, 0, 255, 255], [255, 0, 0, 255], none]);
  });

  it("decodes an interlaced GIF frame of many colours into the right rows", async () => {
    const palette = Array.from({ length: 256 }, (_, index): [number, number, number] => [
      index,
      255 - index,
      7,
    ]);
    const width = 16;
    const height = 19; // every interlace pass holds rows
    // A long run first (LZW codes that refer to themselves), then a spread of colours (codes of 9 and 10 bits).
    const pixels = Array.from({ length: width * height }, (_, index) =>
      index < 48 ? 5 : (index * 7 + Math.floor(index / 5)) % 256,
    );
    const gif = buildGif({ width, height }, palette, [{ width, height, pixels, interlaced: true }]);
    const url = server.serve("/interlaced.gif", { body: gif });

    const result = await fetcherWith().fetch(image(url));

    if (!result.ok) throw new Error(result.reason);
    const { rgba } = await rgbaOf(result.picture.bytes);
    const expected = Buffer.from(pixels.flatMap((index) => [index, 255 - index, 7, 255]));
    expect(rgba.equals(expected)).toBe(true);
  });

  it("follows up to 3 redirects, and refuses a 4th", async () => {
    const target = server.serve("/final.png", { body: PNG_1X1 });
    server.serve("/hop3", { redirectTo: target, status: 307 });
    server.serve("/hop2", { redirectTo: "/hop3", status: 301 });
    const start = server.serve("/hop1", { redirectTo: `${server.baseUrl}/hop2` });
    const tooFar = server.serve("/hop0", { redirectTo: start });

    const followed = await fetcherWith().fetch(image(start));
    expect(followed.ok && followed.picture.bytes.equals(PNG_1X1)).toBe(true);

    expect(failureReason(await fetcherWith().fetch(image(tooFar)))).toBe("too many redirects (more than 3)");
  });

  it("refuses a redirect to another scheme", async () => {
    const toFile = server.serve("/to-file", { redirectTo: "file:///etc/passwd" });
    const toFtp = server.serve("/to-ftp", { redirectTo: "ftp://example.com/a.png" });

    expect(failureReason(await fetcherWith().fetch(image(toFile)))).toBe(
      "refused: file: URLs are not fetched",
    );
    expect(failureReason(await fetcherWith().fetch(image(toFtp)))).toBe("refused: ftp: URLs are not fetched");
  });
});

describe("decoding within bounds", () => {
  it("scales a picture longer than media.maxVisionSide down, keeping its type", async () => {
    const wide = encodeRgbaPng(200, 100, new Uint8Array(200 * 100 * 4).fill(200));
    const url = server.serve("/wide.png", { body: wide });

    const result = await fetcherWith({ maxVisionSide: 64 }).fetch(image(url));

    if (!result.ok) throw new Error(result.reason);
    expect(result.picture.mime).toBe("image/png");
    expect(result.picture.sha256).toBe(createHash("sha256").update(result.picture.bytes).digest("hex"));
    const { width, height } = await rgbaOf(result.picture.bytes);
    expect([width, height]).toEqual([64, 32]);
  });

  it("refuses a GIF frame bomb by its header at once, and the same bytes again without decoding", async () => {
    const bomb = gifFrameBomb();
    const fetcher = fetcherWith();
    const started = performance.now();

    const first = await fetcher.fetch(image(server.serve("/bomb.gif", { body: bomb })));
    const again = await fetcher.fetch(image(server.serve("/bomb-copy.gif", { body: bomb })));

    const refused = "GIF too large to decode: 65535×16384 pixels (the limit is 9 megapixels)";
    expect(first).toEqual({ ok: false, reason: refused, unreadable: true });
    expect(failureReason(again)).toBe(`${refused} (seen before, not decoded again)`);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it("draws a frame that fits the pixel limit but not its screen on a screen grown to hold it", async () => {
    const gif = gifFrameBomb({ width: 1, height: 1 }, { width: 300, height: 200 });
    const url = server.serve("/grown.gif", { body: gif });

    const result = await fetcherWith().fetch(image(url));

    if (!result.ok) throw new Error(result.reason);
    const { width, height } = await rgbaOf(result.picture.bytes);
    expect([width, height]).toEqual([300, 200]);
  });
});

describe("a picture that cannot be had becomes a reason", () => {
  it("reports the HTTP status", async () => {
    expect(failureReason(await fetcherWith().fetch(image(`${server.baseUrl}/missing.png`)))).toBe("HTTP 404");
  });

  it("refuses a body that is not a picture, saying how it starts", async () => {
    const url = server.serve("/page", {
      body: Buffer.from("<!DOCTYPE html><p>hi</p>"),
      contentType: "image/png",
    });
    const empty = server.serve("/empty", { body: Buffer.alloc(0) });
    const binary = server.serve("/binary", { body: Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x00, 0x01]) });

    expect(failureReason(await fetcherWith().fetch(image(url)))).toBe(
      'not a picture (starts with "<!DOCTYPE ht")',
    );
    expect(failureReason(await fetcherWith().fetch(image(empty)))).toBe("not a picture (empty)");
    expect(failureReason(await fetcherWith().fetch(image(binary)))).toBe(
      "not a picture (starts with 50 4b 03 04 00 01)",
    );
  });

  it("refuses a picture over the size cap by its Content-Length without reading it", async () => {
    const big = Buffer.concat([PNG_1X1, Buffer.alloc(3 * 1024 * 1024)]);
    const url = server.serve("/big-announced.png", { body: big });

    const reason = failureReason(await fetcherWith({ maxBytes: 2 * 1024 * 1024 }).fetch(image(url)));

    expect(reason).toBe("too large: 3 MB over the 2 MB limit");
  });

  it("stops reading a streamed body at the size cap", async () => {
    const endless = Buffer.concat([PNG_1X1, Buffer.alloc(20 * 1024 * 1024)]);
    const url = server.serve("/big-streamed.png", { body: endless, streamed: true });
    const startedAt = Date.now();

    const reason = failureReason(await fetcherWith({ maxBytes: 1024 * 1024 }).fetch(image(url)));

    expect(reason).toBe("too large: over the 1 MB limit");
    expect(Date.now() - startedAt).toBeLessThan(2_000);
  });

  it("gives up after media.timeoutMs, redirects included", async () => {
    const slow = server.serve("/slow.png", { body: PNG_1X1, delayMs: 5_000 });
    const viaRedirect = server.serve("/to-slow", { redirectTo: slow });
    const startedAt = Date.now();

    const reason = failureReason(await fetcherWith({ timeoutMs: 300 }).fetch(image(viaRedirect)));

    expect(reason).toBe("timed out after 300 ms");
    expect(Date.now() - startedAt).toBeLessThan(2_000);
  });

  it("stops when the caller aborts", async () => {
    const slow = server.serve("/slow-abort.png", { body: PNG_1X1, delayMs: 5_000 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);

    const reason = failureReason(await fetcherWith().fetch(image(slow), controller.signal));

    expect(reason).toBe("aborted");
  });

  it("reports a GIF it cannot read", async () => {
    const cut = buildGif(
      { width: 2, height: 2 },
      [
        [0, 0, 0],
        [255, 255, 255],
      ],
      [{ width: 2, height: 2, pixels: [0, 1, 1, 0] }],
    );
    const url = server.serve("/cut.gif", { body: cut.subarray(0, 20) });

    expect(failureReason(await fetcherWith().fetch(image(url)))).toMatch(/^broken GIF: .*end of GIF/);
  });

  it("logs each failure with the host only, never the URL's keys", async () => {
    const logs = new LogCapture();
    const fetcher = testPictureFetcher({ allowPrivateNetworks: true }, { logger: logs.logger() });

    await fetcher.fetch(image(`${server.baseUrl}/missing.png?rkey=SECRET`));

    expect(logs.lines).toContainEqual(
      expect.objectContaining({ host: `127.0.0.1:${server.port}`, reason: "HTTP 404" }),
    );
    expect(JSON.stringify(logs.lines)).not.toContain("SECRET");
  });
});
