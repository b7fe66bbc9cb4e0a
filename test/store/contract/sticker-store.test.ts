import { beforeEach, expect, it } from "vitest";
import type { Stores } from "../../../src/store/types.ts";
import { encodeRgbaPng } from "../../support/pictures.ts";
import { forEachBackend } from "./backends.ts";

const GROUP_CHAT = "onebot:10000:group:20000";
const OTHER_CHAT = "onebot:10000:group:20001";

/** A real 1×1 PNG of one grey level, and its made-up hash (the store trusts the caller's). */
function sticker(level: number, description: string, emotions: string[], createdAt = level) {
  const bytes = encodeRgbaPng(1, 1, Uint8Array.from([level, level, level, 255]));
  return {
    sha256: `sha-${level}`,
    mime: "image/png",
    bytes,
    description,
    emotions,
    createdAt,
    sessionId: GROUP_CHAT,
  };
}

/** Limits by count only: no byte limit is reached. */
const upTo = (capacity: number) => ({ capacity, maxTotalBytes: 1024 * 1024 });

forEachBackend((backend) => {
  let stores: Stores;

  beforeEach(async () => {
    stores = await backend.open();
  });

  it("keeps a sticker with its bytes and emotion tags, across a restart, once per content", async () => {
    const happy = sticker(10, "开心", ["开心", "得意"]);
    expect(await stores.stickers.keep(happy, upTo(200))).toBe(true);
    expect(await stores.stickers.keep({ ...happy, description: "另一个描述" }, upTo(200))).toBe(false);
    expect(await stores.stickers.keep(sticker(11, "无语", []), upTo(200))).toBe(true);
    const url = backend.urlOf(stores);
    await stores.close();

    stores = await backend.open(url);
    const kept = await stores.stickers.list();
    expect(kept.sort((a, b) => a.createdAt - b.createdAt)).toEqual([
      {
        sha256: "sha-10",
        mime: "image/png",
        description: "开心",
        emotions: ["开心", "得意"],
        usageCount: 0,
        lastUsedAt: 0,
        createdAt: 10,
        sessionId: GROUP_CHAT,
      },
      {
        sha256: "sha-11",
        mime: "image/png",
        description: "无语",
        emotions: [],
        usageCount: 0,
        lastUsedAt: 0,
        createdAt: 11,
        sessionId: GROUP_CHAT,
      },
    ]);
    expect(await stores.stickers.bytes("sha-10")).toEqual(Buffer.from(happy.bytes));
    expect(await stores.stickers.bytes("sha-missing")).toBeUndefined();
  });

  it("beyond the capacity drops the least used, keeping the most used and the newcomer", async () => {
    await stores.stickers.keep(sticker(1, "无语", ["无语"]), upTo(3));
    await stores.stickers.keep(sticker(2, "开心", ["开心"]), upTo(3));
    await stores.stickers.keep(sticker(3, "震惊", ["震惊"]), upTo(3));
    await stores.stickers.markUsed("sha-1", 1_000);
    await stores.stickers.markUsed("sha-1", 2_000);
    await stores.stickers.markUsed("sha-3", 3_000);

    // Full: the newcomer gets in, the never-used "开心" goes.
    await stores.stickers.keep(sticker(4, "生气", ["生气"]), upTo(3));
    const kept = await stores.stickers.list();
    expect(kept.map((row) => row.description).sort()).toEqual(["无语", "生气", "震惊"]);
    expect(kept.find((row) => row.sha256 === "sha-1")).toMatchObject({ usageCount: 2, lastUsedAt: 2_000 });
    expect(await stores.stickers.bytes("sha-2")).toBeUndefined();
    expect(await stores.stickers.count()).toBe(3);

    // Among stickers used as often, the one used longest ago goes.
    await stores.stickers.markUsed("sha-4", 5_000);
    await stores.stickers.keep(sticker(5, "困", ["困"]), upTo(3));
    const sha256s = async () => (await stores.stickers.list()).map((row) => row.sha256).sort();
    expect(await sha256s()).toEqual(["sha-1", "sha-4", "sha-5"]);
    // A smaller capacity drops as many as it takes.
    await stores.stickers.keep(sticker(6, "哭", ["哭"]), upTo(2));
    expect(await sha256s()).toEqual(["sha-1", "sha-6"]);
  });

  it("beyond the byte limit drops the least used, then the oldest, until the rest fit", async () => {
    // 1,000 bytes each (the store keeps whatever bytes it is given).
    const sized = (level: number) => ({
      ...sticker(level, `第${level}个`, []),
      bytes: Buffer.alloc(1_000, level),
    });
    const limits = { capacity: 200, maxTotalBytes: 3_500 };
    for (const level of [1, 2, 3]) await stores.stickers.keep(sized(level), limits);
    await stores.stickers.markUsed("sha-1", 1_000);
    const sha256s = async () => (await stores.stickers.list()).map((row) => row.sha256).sort();

    // 4,000 bytes would be over: the oldest never-used one makes room for the newcomer.
    await stores.stickers.keep(sized(4), limits);
    expect(await sha256s()).toEqual(["sha-1", "sha-3", "sha-4"]);
    // A lower limit drops as many as it takes; the newcomer stays.
    await stores.stickers.keep(sized(5), { capacity: 200, maxTotalBytes: 2_000 });
    expect(await sha256s()).toEqual(["sha-1", "sha-5"]);
  });

  it("keeps the emotion words one per line, the same row on every backend", async () => {
    await stores.stickers.keep(sticker(1, "开心", ["开心", "得意"]), upTo(200));
    await stores.stickers.keep(sticker(2, "无语", []), upTo(200));
    expect(
      await backend.committedRows(
        backend.urlOf(stores),
        "SELECT sha256, emotions FROM stickers ORDER BY created_at",
      ),
    ).toEqual([
      { sha256: "sha-1", emotions: "开心\n得意" },
      { sha256: "sha-2", emotions: "" },
    ]);
  });

  it("among stickers tied on use and age drops the hash first in code-point order, whatever the collation", async () => {
    stores = await backend.openSortingAsEnglish();
    // "B" sorts before "a" by code point; English rules put "a" first.
    for (const sha256 of ["sha-a", "sha-B"])
      await stores.stickers.keep({ ...sticker(1, sha256, []), sha256 }, upTo(3));
    await stores.stickers.keep(sticker(2, "newcomer", []), upTo(2));
    expect((await stores.stickers.list()).map((row) => row.sha256).sort()).toEqual(["sha-2", "sha-a"]);
  });

  it("lists and counts the stickers collected in one chat, or all of them", async () => {
    await stores.stickers.keep(sticker(1, "开心", []), upTo(200));
    await stores.stickers.keep({ ...sticker(2, "无语", []), sessionId: OTHER_CHAT }, upTo(200));
    expect((await stores.stickers.list(GROUP_CHAT)).map((row) => row.description)).toEqual(["开心"]);
    expect((await stores.stickers.list(OTHER_CHAT)).map((row) => row.sessionId)).toEqual([OTHER_CHAT]);
    expect(await stores.stickers.count(GROUP_CHAT)).toBe(1);
    expect(await stores.stickers.count("onebot:10000:private:30001")).toBe(0);
    expect(await stores.stickers.count()).toBe(2);
    expect(await stores.stickers.list()).toHaveLength(2);
  });
});
