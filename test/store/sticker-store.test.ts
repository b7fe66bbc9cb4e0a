import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { encodeRgbaPng } from "../../src/media/png-encode.ts";
import { openStore } from "../../src/store/open-store.ts";
import type { Stores } from "../../src/store/types.ts";
import { captureLog, makeTempDir, type TempDir } from "../support/store.ts";

/** A real 1×1 PNG of one grey level, and its made-up hash (the store trusts the caller's). */
function sticker(level: number, description: string, emotions: string[], createdAt = level) {
  const bytes = encodeRgbaPng(1, 1, Uint8Array.from([level, level, level, 255]));
  return { sha256: `sha-${level}`, mime: "image/png", bytes, description, emotions, createdAt };
}

describe("the sticker store (SQLite)", () => {
  let dir: TempDir;
  let stores: Stores;
  const url = () => `sqlite:${join(dir.path, "tsumugi.db")}`;

  beforeEach(() => {
    dir = makeTempDir();
    stores = openStore(url(), captureLog().logger);
  });

  afterEach(async () => {
    await stores.close();
    dir.remove();
  });

  it("keeps a sticker with its bytes and emotion tags, across a restart, once per content", async () => {
    const happy = sticker(10, "开心", ["开心", "得意"]);
    expect(await stores.stickers.keep(happy, 200)).toBe(true);
    expect(await stores.stickers.keep({ ...happy, description: "另一个描述" }, 200)).toBe(false);
    await stores.close();

    stores = openStore(url(), captureLog().logger);
    expect(await stores.stickers.list()).toEqual([
      {
        sha256: "sha-10",
        mime: "image/png",
        description: "开心",
        emotions: ["开心", "得意"],
        usageCount: 0,
        lastUsedAt: 0,
        createdAt: 10,
      },
    ]);
    expect(await stores.stickers.bytes("sha-10")).toEqual(happy.bytes);
  });

  it("beyond the capacity drops the least used, keeping the most used and the newcomer", async () => {
    await stores.stickers.keep(sticker(1, "无语", ["无语"]), 3);
    await stores.stickers.keep(sticker(2, "开心", ["开心"]), 3);
    await stores.stickers.keep(sticker(3, "震惊", ["震惊"]), 3);
    await stores.stickers.markUsed("sha-1", 1_000);
    await stores.stickers.markUsed("sha-1", 2_000);
    await stores.stickers.markUsed("sha-3", 3_000);

    // Full: the newcomer gets in, the never-used "开心" goes.
    await stores.stickers.keep(sticker(4, "生气", ["生气"]), 3);
    const kept = await stores.stickers.list();
    expect(kept.map((row) => row.description).sort()).toEqual(["无语", "生气", "震惊"]);
    expect(kept.find((row) => row.sha256 === "sha-1")).toMatchObject({ usageCount: 2, lastUsedAt: 2_000 });
    expect(await stores.stickers.bytes("sha-2")).toBeUndefined();
    expect(await stores.stickers.count()).toBe(3);
  });
});
