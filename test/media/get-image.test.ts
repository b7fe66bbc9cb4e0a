import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { oneBotGetImage, type PictureFetchSettings } from "../../src/media/picture-fetcher.ts";
import { type OneBotHarness, startOneBotHarness } from "../support/onebot-harness.ts";
import { failureReason, testPictureFetcher } from "../support/picture-fetching.ts";
import { type PictureServer, startPictureServer } from "../support/picture-server.ts";
import { JPEG_2X2, PNG_1X1 } from "../support/pictures.ts";

/**
 * A picture segment with only a file id: the bot asks the OneBot implementation (`get_image`,
 * over a real connection to the stand-in) and fetches what it answers, with the same limits.
 */

let onebot: OneBotHarness;
let pictures: PictureServer;
let dir: string;

beforeAll(async () => {
  onebot = await startOneBotHarness({ mode: "reverse-ws" });
  pictures = await startPictureServer();
  dir = mkdtempSync(join(tmpdir(), "tsumugi-get-image-"));
});

afterAll(async () => {
  await onebot.close();
  await pictures.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The picture server is on loopback, so private networks are allowed unless a test says otherwise. */
function fetcherWith(changes: Partial<PictureFetchSettings> = {}) {
  return testPictureFetcher(
    { allowPrivateNetworks: true, ...changes },
    { getImage: oneBotGetImage(onebot.adapter, onebot.standin.selfId) },
  );
}

describe("a picture known only by its file id", () => {
  it("is fetched from the url get_image answers", async () => {
    const url = pictures.serve("/by-id.png", { body: PNG_1X1 });
    onebot.standin.setImage("abc.image", {
      file: "/napcat/cache/abc.png",
      url,
      file_size: "68",
      file_name: "abc.png",
    });

    const result = await fetcherWith().fetch({ kind: "image", fileId: "abc.image" });

    expect(result.ok && result.picture.bytes.equals(PNG_1X1)).toBe(true);
    const call = await onebot.standin.waitForAction("get_image");
    expect(call.params).toMatchObject({ file: "abc.image" });
  });

  it("uses get_image when the segment's url is not http(s)", async () => {
    const url = pictures.serve("/not-http.png", { body: PNG_1X1 });
    onebot.standin.setImage("local.image", { url });

    const result = await fetcherWith().fetch({
      kind: "image",
      fileId: "local.image",
      url: "file:///etc/passwd",
    });

    expect(result.ok).toBe(true);
  });

  it("checks get_image's url like any other", async () => {
    onebot.standin.setImage("meta.image", { url: "http://169.254.169.254/latest/meta-data/" });

    const reason = failureReason(
      await fetcherWith({ allowPrivateNetworks: false }).fetch({ kind: "image", fileId: "meta.image" }),
    );

    expect(reason).toBe("refused: 169.254.169.254 is a link-local address");
  });

  it("reports get_image failing", async () => {
    const reason = failureReason(await fetcherWith().fetch({ kind: "image", fileId: "unknown.image" }));

    expect(reason).toBe("get_image failed (retcode 1200): 图片不存在");
  });

  it("times out a get_image that never answers", async () => {
    onebot.standin.setImage("slow.image", { url: pictures.serve("/slow-id.png", { body: PNG_1X1 }) });
    onebot.standin.delay("get_image", 5_000);
    try {
      const reason = failureReason(
        await fetcherWith({ timeoutMs: 200 }).fetch({ kind: "image", fileId: "slow.image" }),
      );
      expect(reason).toBe("timed out after 200 ms");
    } finally {
      onebot.standin.delay("get_image", 0);
    }
  });

  it("says so when there is neither a url nor a way to ask", async () => {
    const withoutGetImage = testPictureFetcher({ allowPrivateNetworks: true });

    expect(failureReason(await withoutGetImage.fetch({ kind: "image", fileId: "abc.image" }))).toBe(
      "no url, and get_image is not available",
    );
    expect(failureReason(await withoutGetImage.fetch({ kind: "sticker", summary: "[动画表情]" }))).toBe(
      "nothing to fetch (no url, no file id)",
    );
  });
});

describe("a local file get_image names", () => {
  it("is read only with media.allowLocalFiles", async () => {
    const path = join(dir, "cached.jpg");
    writeFileSync(path, JPEG_2X2);
    onebot.standin.setImage("cached.image", { file: path, file_size: String(JPEG_2X2.length) });

    const refused = failureReason(await fetcherWith().fetch({ kind: "image", fileId: "cached.image" }));
    const read = await fetcherWith({ allowLocalFiles: true }).fetch({
      kind: "image",
      fileId: "cached.image",
    });

    expect(refused).toBe("get_image gave no url (only a local file, and media.allowLocalFiles is off)");
    expect(read.ok && read.picture.mime === "image/jpeg" && read.picture.bytes.equals(JPEG_2X2)).toBe(true);
  });

  it("is preferred over the url when allowed, as a file:// URL too", async () => {
    const path = join(dir, "preferred.png");
    writeFileSync(path, PNG_1X1);
    onebot.standin.setImage("preferred.image", {
      file: `file://${path}`,
      url: `${pictures.baseUrl}/gone.png`,
    });

    const result = await fetcherWith({ allowLocalFiles: true }).fetch({
      kind: "image",
      fileId: "preferred.image",
    });

    expect(result.ok).toBe(true);
  });

  it("must be a regular file within the size cap", async () => {
    const fifo = join(dir, "pipe");
    execFileSync("mkfifo", [fifo]);
    const big = join(dir, "big.png");
    writeFileSync(big, Buffer.concat([PNG_1X1, Buffer.alloc(2 * 1024 * 1024)]));
    onebot.standin.setImage("dir.image", { file: dir });
    onebot.standin.setImage("fifo.image", { file: fifo });
    onebot.standin.setImage("big.image", { file: big });
    const fetcher = fetcherWith({ allowLocalFiles: true, maxBytes: 1024 * 1024 });

    expect(failureReason(await fetcher.fetch({ kind: "image", fileId: "dir.image" }))).toBe(
      `refused: ${dir} is not a regular file`,
    );
    expect(failureReason(await fetcher.fetch({ kind: "image", fileId: "fifo.image" }))).toBe(
      `refused: ${fifo} is not a regular file`,
    );
    expect(failureReason(await fetcher.fetch({ kind: "image", fileId: "big.image" }))).toBe(
      "too large: 2 MB over the 1 MB limit",
    );
  });
});
