/**
 * Pictures an attacker crafts: a GIF of 0.4 MB whose 1×1 screen holds one
 * 65535×16384 frame. Before, the bot drew that frame (1 GB) on the event loop. It is refused by
 * its header, off the event loop, remembered by its bytes, charged to the day's vision budget,
 * and the turn still answers with the picture shown as unreadable.
 */
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import type { BotProcess } from "../support/bot-process.ts";
import { watchResponsiveness } from "../support/event-loop-lag.ts";
import { groupSession, mention } from "../support/messages.ts";
import { askWithPictures, imageSegment, pictureScenes } from "../support/picture-scene.ts";
import { type PictureServer, startPictureServer } from "../support/picture-server.ts";
import { encodeRgbaPng, gifFrameBomb } from "../support/pictures.ts";
import { type Scene, startProcessScene } from "../support/scene.ts";

const WITH_VISION = {
  llm: { models: { vision: ["main/scripted-model"] } },
  media: { allowPrivateNetworks: true },
};
const REPLY = [{ toolCalls: [{ name: "reply", arguments: {} }] }, { text: "图片打不开" }];
const BOMB = gifFrameBomb();
const REFUSED = "GIF too large to decode: 65535×16384 pixels (the limit is 9 megapixels)";
const REMEMBERED = `${REFUSED} (seen before, not decoded again)`;

/** Resident and peak resident memory of a process, in MB (Linux /proc). */
function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kilobytes = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1]);
  return { rss: kilobytes("VmRSS") / 1024, peak: kilobytes("VmHWM") / 1024 };
}

describe("a GIF frame bomb sent to a running bot process", { timeout: 40_000 }, () => {
  let scene: Scene<BotProcess> | undefined;
  let pictures: PictureServer | undefined;
  afterEach(async () => {
    await scene?.close();
    await pictures?.close();
  });

  it("is refused by its header without memory or event loop cost, remembered, and the turn answers", async () => {
    pictures = await startPictureServer();
    scene = await startProcessScene({ config: WITH_VISION });
    const { bot, llm, qq } = scene;
    const pid = bot.child.pid!;
    const before = memoryOf(pid);
    const watch = watchResponsiveness(bot.baseUrl);

    llm.enqueue(...REPLY);
    const messageId = askWithPictures(
      scene,
      "这张图是什么",
      imageSegment("bomb.gif", pictures.serve("/bomb.gif", { body: BOMB })),
    );
    const sent = await qq.waitForSent(undefined, 15_000);

    expect(sent.text).toBe("图片打不开");
    expect(await watch.stop()).toBeLessThan(1_500);
    expect(memoryOf(pid).peak - before.rss).toBeLessThan(200);
    expect(llm.lastRequestWithTool("reply")?.promptText).toContain("这张图是什么[图片：无法读取]");
    expect(llm.requests.filter((request) => request.images.length > 0)).toEqual([]);
    expect(bot.logs).toContainEqual(expect.objectContaining({ msg: "picture not fetched", reason: REFUSED }));

    // The same bytes under another file id and url: fetched, known by their hash, not decoded.
    llm.enqueue(...REPLY);
    askWithPictures(
      scene,
      "再看这张",
      imageSegment("bomb-copy.gif", pictures.serve("/bomb-copy.gif", { body: BOMB })),
    );
    await qq.waitForSent((message) => message !== sent, 15_000);
    expect(llm.lastRequestWithTool("reply")?.promptText).toContain("再看这张[图片：无法读取]");
    expect(bot.logs).toContainEqual(
      expect.objectContaining({ msg: "picture not fetched", reason: REMEMBERED }),
    );

    // The console's view of it: an error at once, every time, without decoding again.
    for (let view = 0; view < 2; view++) {
      const started = performance.now();
      const index = String(mention("").length);
      const query = new URLSearchParams({ sessionId: groupSession(), messageId, index });
      const answer = await fetch(`${bot.baseUrl}/api/pictures?${query}`);
      expect(answer.status).toBe(502);
      expect(((await answer.json()) as { message: string }).message).toBe(REMEMBERED);
      expect(performance.now() - started).toBeLessThan(1_000);
    }
    expect(memoryOf(pid).peak - before.rss).toBeLessThan(200);
  });
});

describe("the day's vision budget", () => {
  const start = pictureScenes();

  it("is charged for an attempt that fails to decode", async () => {
    const scene = await start({
      ...WITH_VISION,
      media: { allowPrivateNetworks: true, vision: { maxPerDay: 1 } },
    });
    const { bot, llm, pictures: server } = scene;
    llm.enqueue(...REPLY);
    askWithPictures(scene, "这张", imageSegment("bomb.gif", server.serve("/bomb.gif", { body: BOMB })));
    await bot.turnFinished(1, 10_000);
    const failed = await bot.waitForEvent("vision.failed");
    expect(failed.data).toEqual({ kind: "image", stage: "fetch", reason: REFUSED });

    const cat = encodeRgbaPng(1, 1, Uint8Array.from([255, 140, 0, 255]));
    llm.enqueue(...REPLY);
    askWithPictures(scene, "那这张", imageSegment("cat.png", server.serve("/cat.png", { body: cat })));
    await bot.turnFinished(2, 10_000);
    expect((await bot.waitForEvent("vision.skipped")).data).toEqual({ count: 1, reason: "daily cap" });
    expect(server.requests).toEqual(["/bomb.gif"]);
    expect(llm.requests.filter((request) => request.images.length > 0)).toEqual([]);
    expect(llm.lastRequestWithTool("reply")?.promptText).toContain("那这张[图片]");
  });
});
