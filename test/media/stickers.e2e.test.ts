import { describe, expect, it } from "vitest";
import { openStore } from "../../src/store/open-store.ts";
import type { KeptSticker } from "../../src/store/types.ts";
import { ALICE, GROUP, mention, OTHER_GROUP, SELF } from "../support/messages.ts";
import type { OneBotStandIn, SentMessage, WireSegment } from "../support/onebot-standin.ts";
import { decodedPicture } from "../support/picture-fetching.ts";
import { type PictureScene, pictureScenes } from "../support/picture-scene.ts";
import { buildGif, encodeRgbaPng } from "../support/pictures.ts";
import type { RecordedLlmRequest, ScriptedAnswer } from "../support/scripted-llm-server.ts";
import { captureLog } from "../support/store.ts";

/** The bot with a vision model, fetching from the picture server on 127.0.0.1. */
const VISION = {
  llm: { models: { vision: ["main/scripted-model"] } },
  media: { allowPrivateNetworks: true },
};
const STICKERS_ON = { ...VISION, stickers: { enabled: true } };

/** A PNG of 48×48 pixels of noise: larger than history keeps inline (4 KB), as most stickers are. */
function noisyPng(seed: number): Buffer {
  const pixels = new Uint8Array(48 * 48 * 4);
  let state = seed;
  for (let index = 0; index < pixels.length; index++) {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    pixels[index] = index % 4 === 3 ? 255 : state >> 23;
  }
  return encodeRgbaPng(48, 48, pixels);
}

/** Two real stickers: a large PNG and an animated GIF (two frames). */
const SPEECHLESS = noisyPng(7);
const HAPPY = buildGif(
  { width: 2, height: 2 },
  [
    [250, 200, 0],
    [0, 0, 0],
  ],
  [
    { width: 2, height: 2, pixels: [0, 0, 0, 0] },
    { width: 2, height: 2, pixels: [1, 1, 1, 1] },
  ],
);

/** The vision model's answer for each sticker: a meaning line, then the emotions line. */
const ANSWERS = new Map([
  [SPEECHLESS.toString("base64"), "无语\n情绪：无语、嫌弃"],
  // The vision model sees a GIF's first frame.
  [(await decodedPicture(HAPPY)).bytes.toString("base64"), "开心\n情绪：开心、得意"],
]);
function describeSticker(request: RecordedLlmRequest): ScriptedAnswer {
  const base64 = request.images[0]?.split(",")[1] ?? "";
  return { text: ANSWERS.get(base64) ?? "看不清" };
}

const NO_REPLY = { toolCalls: [{ name: "no_reply", arguments: { reason: "已经发了表情" } }] };

const start = pictureScenes();

function sticker(file: string, url: string): WireSegment {
  return { type: "image", data: { file, url, sub_type: 1 } };
}

/** Alice @-mentions the bot in `group` with `text`, these segments after it. */
function ask(qq: OneBotStandIn, text: string, segments: WireSegment[] = [], group = GROUP): string {
  return qq.pushGroupMessage({
    groupId: group,
    userId: ALICE,
    nickname: "Alice",
    message: [...mention(text), ...segments],
  });
}

/** The bytes of the image segment a sent message carried inline. */
function sentPicture(sent: SentMessage): { bytes: Buffer; subType: unknown } | undefined {
  const segments = sent.message as Array<{ type: string; data: Record<string, unknown> }>;
  const image = segments.find((segment) => segment.type === "image");
  const file = String(image?.data.file ?? "");
  if (!file.startsWith("base64://")) return undefined;
  return { bytes: Buffer.from(file.slice("base64://".length), "base64"), subType: image?.data.sub_type };
}

/** The kept stickers as the bot's database holds them, read as a restart would (its own connection). */
async function keptStickers(
  s: PictureScene,
): Promise<Array<Pick<KeptSticker, "description" | "emotions" | "usageCount">>> {
  const stores = await openStore(s.bot.config.storage.url, captureLog().logger);
  try {
    const kept = await stores.stickers.list();
    return kept.map(({ description, emotions, usageCount }) => ({ description, emotions, usageCount }));
  } finally {
    await stores.close();
  }
}

describe("stickers back: kept stickers the planner can send", () => {
  it("keeps a described sticker with its emotions, and send_sticker posts its very bytes", async () => {
    const scene = await start(STICKERS_ON);
    const { llm, bot, qq, pictures } = scene;
    const url = pictures.serve("/speechless.png", { body: SPEECHLESS });
    llm.enqueue(
      describeSticker,
      { toolCalls: [{ name: "send_sticker", arguments: { emotion: "无语" } }] },
      NO_REPLY,
    );
    ask(qq, "你看他", [sticker("speechless.png", url)]);

    const learned = await bot.waitForEvent("sticker.learned");
    expect(learned.data).toMatchObject({ description: "无语", emotions: ["无语", "嫌弃"] });
    const sent = await qq.waitForSent(undefined, 5_000);
    expect(sentPicture(sent)).toEqual({ bytes: SPEECHLESS, subType: "1" });
    await bot.turnFinished(1, 5_000);

    const planner = llm.requestsWithTool("reply");
    expect(planner[0]?.toolNames).toContain("send_sticker");
    // The transcript shows the meaning only; the model is told what it sent.
    expect(planner[0]?.promptText).toContain("你看他[表情：无语]");
    expect(planner[1]?.promptText).toContain("已发送表情包：无语");
    expect(await bot.waitForEvent("sticker.sent")).toMatchObject({ data: { description: "无语" } });
    expect(await keptStickers(scene)).toEqual([
      { description: "无语", emotions: ["无语", "嫌弃"], usageCount: 1 },
    ]);

    // Next turn, the history shows what the bot sent, though its bytes were not kept there.
    llm.enqueue(NO_REPLY);
    ask(qq, "哈哈");
    await bot.turnFinished(2, 5_000);
    expect(llm.lastRequestWithTool("reply")?.promptText).toContain("紬(你): [表情：无语]");
    expect(bot.events.filter((event) => event.type === "vision.failed")).toEqual([]);
    expect(llm.unscriptedRequests).toEqual([]);
  });

  it("picks by emotion among several, sends an animated one animated, and says so when none fits", async () => {
    const scene = await start(STICKERS_ON);
    const { llm, bot, qq, pictures } = scene;
    const speechless = pictures.serve("/speechless.png", { body: SPEECHLESS });
    const happy = pictures.serve("/happy.gif", { body: HAPPY });
    llm.enqueue(
      describeSticker,
      describeSticker,
      { toolCalls: [{ name: "send_sticker", arguments: { emotion: "愤怒" } }] },
      { toolCalls: [{ name: "send_sticker", arguments: { emotion: "得意", description: "开心" } }] },
      NO_REPLY,
    );
    ask(qq, "两个表情", [sticker("speechless.png", speechless), sticker("happy.gif", happy)]);
    const sent = await qq.waitForSent(undefined, 5_000);
    expect(sentPicture(sent)?.bytes).toEqual(HAPPY);
    await bot.turnFinished(1, 5_000);
    expect(llm.requestsWithTool("reply")[1]?.promptText).toContain("没有合适的表情包");
    expect(qq.sent).toHaveLength(1);
  });

  it("is off by default: nothing is kept and send_sticker is not offered", async () => {
    const scene = await start(VISION);
    const { llm, bot, qq, pictures } = scene;
    const url = pictures.serve("/speechless.png", { body: SPEECHLESS });
    llm.enqueue(describeSticker, NO_REPLY);
    ask(qq, "你看他", [sticker("speechless.png", url)]);
    await bot.turnFinished(1, 5_000);
    expect(llm.lastRequestWithTool("reply")?.toolNames).not.toContain("send_sticker");
    expect(bot.events.filter((event) => event.type === "sticker.learned")).toEqual([]);
    expect(await keptStickers(scene)).toEqual([]);
  });

  it("with stickers.groups, keeps and offers them only in the groups listed", async () => {
    const scene = await start({
      ...VISION,
      stickers: { enabled: true, groups: [OTHER_GROUP] },
    });
    const { llm, bot, qq, pictures } = scene;
    const url = pictures.serve("/speechless.png", { body: SPEECHLESS });
    const happy = pictures.serve("/happy.gif", { body: HAPPY });
    // In GROUP (not listed) a described sticker is not kept.
    llm.enqueue(describeSticker, NO_REPLY);
    ask(qq, "这个", [sticker("happy.gif", happy)]);
    await bot.turnFinished(1, 5_000);
    // In OTHER_GROUP it is, and send_sticker is offered there.
    llm.enqueue(describeSticker, NO_REPLY);
    ask(qq, "你看他", [sticker("speechless.png", url)], OTHER_GROUP);
    await bot.turnFinished(2, 5_000);
    expect(llm.lastRequestWithTool("reply")?.toolNames).toContain("send_sticker");
    // Back in GROUP, with a sticker kept: still not offered.
    llm.enqueue(NO_REPLY);
    ask(qq, "再来");
    await bot.turnFinished(3, 5_000);
    expect(llm.lastRequestWithTool("reply")?.toolNames).not.toContain("send_sticker");
    expect((await keptStickers(scene)).map((row) => row.description)).toEqual(["无语"]);
  });

  it.each([false, true])(
    "sends a sticker only in the chat it was collected in, in others too with shareAcrossChats: %s",
    async (shareAcrossChats) => {
      const scene = await start({ ...VISION, stickers: { enabled: true, shareAcrossChats } });
      const { llm, bot, qq, pictures } = scene;
      const url = pictures.serve("/speechless.png", { body: SPEECHLESS });
      llm.enqueue(describeSticker, NO_REPLY);
      ask(qq, "你看他", [sticker("speechless.png", url)]);
      await bot.waitForEvent("sticker.learned");
      await bot.turnFinished(1, 5_000);

      // In another group, the sticker collected in GROUP is offered only when shared.
      llm.enqueue(
        ...(shareAcrossChats
          ? [{ toolCalls: [{ name: "send_sticker", arguments: { emotion: "无语" } }] }]
          : []),
        NO_REPLY,
      );
      ask(qq, "在吗", [], OTHER_GROUP);
      await bot.turnFinished(2, 5_000);
      const planner = llm.requestsWithTool("reply").find((request) => request.promptText.includes("在吗"));
      expect(planner?.toolNames.includes("send_sticker")).toBe(shareAcrossChats);
      const sentThere = qq.sent.filter((sent) => sent.groupId === OTHER_GROUP);
      expect(sentThere.map((sent) => sentPicture(sent)?.bytes)).toEqual(shareAcrossChats ? [SPEECHLESS] : []);
      expect(llm.unscriptedRequests).toEqual([]);
    },
  );

  it("keeps a sticker once, whether posted again or echoed back from the bot's own send", async () => {
    // Every picture of the history is described (not only those the turn points at), so both
    // copies are fetched and recognised as the sticker kept already.
    const scene = await start({
      ...STICKERS_ON,
      media: { ...STICKERS_ON.media, vision: { onDemand: false } },
    });
    const { llm, bot, qq, pictures } = scene;
    const url = pictures.serve("/speechless.png", { body: SPEECHLESS });
    llm.enqueue(
      describeSticker,
      { toolCalls: [{ name: "send_sticker", arguments: { description: "无语" } }] },
      NO_REPLY,
    );
    ask(qq, "你看他", [sticker("speechless.png", url)]);
    const sent = await qq.waitForSent(undefined, 5_000);
    await bot.turnFinished(1, 5_000);

    // Bob posts the same sticker under another file id; the bot's own sticker comes back as
    // a message of its account, served from another address.
    const copy = pictures.serve("/copy.jpg", { body: SPEECHLESS });
    const own = pictures.serve("/own.jpg", { body: sentPicture(sent)!.bytes });
    qq.pushGroupMessage({
      groupId: GROUP,
      userId: "30002",
      nickname: "Bob",
      message: [sticker("copy.jpg", copy)],
    });
    qq.pushGroupMessage({ groupId: GROUP, userId: SELF, nickname: "紬", message: [sticker("own.jpg", own)] });
    llm.enqueue(NO_REPLY);
    ask(qq, "好多表情");
    await bot.turnFinished(2, 5_000);

    // Both were fetched for the prompt, neither was described or kept again.
    expect([...pictures.requests].sort()).toEqual(["/copy.jpg", "/own.jpg", "/speechless.png"]);
    expect(bot.events.filter((event) => event.type === "sticker.learned")).toHaveLength(1);
    expect(await keptStickers(scene)).toEqual([
      { description: "无语", emotions: ["无语", "嫌弃"], usageCount: 1 },
    ]);
    expect(llm.unscriptedRequests).toEqual([]);
  });
});
