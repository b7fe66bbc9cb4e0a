import { beforeEach, expect, it } from "vitest";
import type { PictureDescription, Stores } from "../../../src/store/types.ts";
import { forEachBackend } from "./backends.ts";

function description(
  sha256: string,
  text: string,
  kind: PictureDescription["kind"] = "image",
): PictureDescription {
  return { sha256, kind, description: text, model: "vision/v1", createdAt: 1_700_000_000_000 };
}

forEachBackend((backend) => {
  let stores: Stores;

  beforeEach(async () => {
    stores = await backend.open();
  });

  it("finds a description by content and by the file ids that showed it, across a restart", async () => {
    const cat = description("sha-cat", "一只橘猫趴在键盘上");
    await stores.pictures.save(cat, "file-1");
    await stores.pictures.save(description("sha-dog", "一只柴犬", "sticker"));
    const url = backend.urlOf(stores);
    await stores.close();

    stores = await backend.open(url);
    expect(await stores.pictures.findBySha256("sha-cat")).toEqual(cat);
    expect(await stores.pictures.findByFileId("file-1")).toEqual(cat);
    expect(await stores.pictures.findBySha256("sha-dog")).toMatchObject({ kind: "sticker" });
    expect(await stores.pictures.findBySha256("sha-unknown")).toBeUndefined();
    expect(await stores.pictures.findByFileId("file-unknown")).toBeUndefined();
  });

  it("keeps the first description of a content, and points a reused file id at the newest content", async () => {
    await stores.pictures.save(description("sha-cat", "一只橘猫"), "file-1");
    await stores.pictures.save(description("sha-cat", "另一次描述"), "file-2");
    await stores.pictures.save(description("sha-dog", "一只柴犬"));

    expect((await stores.pictures.findByFileId("file-2"))?.description).toBe("一只橘猫");
    await stores.pictures.linkFileId("file-1", "sha-dog");
    expect((await stores.pictures.findByFileId("file-1"))?.description).toBe("一只柴犬");
    expect((await stores.pictures.findBySha256("sha-cat"))?.description).toBe("一只橘猫");
  });
});
