import { describe, expect, it } from "vitest";
import type { MonitorEvent } from "../../src/monitor/monitor.ts";
import { ALICE, GROUP, mention } from "../support/messages.ts";
import type { OneBotStandIn, WireSegment } from "../support/onebot-standin.ts";
import { type PictureScene, pictureScenes } from "../support/picture-scene.ts";
import { encodeRgbaPng } from "../support/pictures.ts";
import type { Scene } from "../support/scene.ts";
import type { RecordedLlmRequest, ScriptedAnswer } from "../support/scripted-llm-server.ts";
import { waitFor } from "../support/wait.ts";

/** The bot with a vision model, allowed to fetch from the picture server on 127.0.0.1. */
const WITH_VISION = {
  llm: { models: { vision: ["main/scripted-model"] } },
  media: { allowPrivateNetworks: true },
};

const REPLY = [{ toolCalls: [{ name: "reply", arguments: {} }] }, { text: "好可爱" }];

/** A 1×1 PNG of one colour: another colour is another picture. */
function onePixelPng(red: number, green: number, blue: number): Buffer {
  return encodeRgbaPng(1, 1, Uint8Array.from([red, green, blue, 255]));
}

const CAT = onePixelPng(255, 140, 0);
const CAT_DESCRIPTION = "一只橘猫趴在键盘上";

const startWithPictures = pictureScenes();
let scene: PictureScene | undefined;

async function start(config: Record<string, unknown> = WITH_VISION): Promise<PictureScene> {
  scene = await startWithPictures(config);
  return scene;
}

function image(file: string, url: string, subType?: number) {
  return { type: "image", data: { file, url, ...(subType === undefined ? {} : { sub_type: subType }) } };
}

function dataUrl(bytes: Buffer): string {
  return `data:image/png;base64,${bytes.toString("base64")}`;
}

/** A vision step answering by the picture it was sent (the calls of one turn run in parallel). */
function describeBy(descriptions: Map<string, string>) {
  return (request: RecordedLlmRequest): ScriptedAnswer => ({
    text: descriptions.get(request.images[0] ?? "") ?? "看不清",
  });
}

const DESCRIBE_CAT = describeBy(new Map([[dataUrl(CAT), CAT_DESCRIPTION]]));

/** Alice @-mentions the bot with `text`, these segments after it. */
function ask(qq: OneBotStandIn, text: string, ...segments: WireSegment[]): string {
  return qq.pushGroupMessage({
    groupId: GROUP,
    userId: ALICE,
    nickname: "Alice",
    message: [...mention(text), ...segments],
  });
}

const visionCalls = (s: Scene) => s.llm.requests.filter((request) => request.images.length > 0);

describe("pictures are described once and shown in the transcript", () => {
  it("answers a question about a posted picture with the picture's description in the prompt", async () => {
    const { llm, bot, qq, pictures } = await start();
    const url = pictures.serve("/cat.png", { body: CAT });
    llm.enqueue(DESCRIBE_CAT, ...REPLY);
    ask(qq, "这张图怎么样", image("cat.png", url));
    const sent = await qq.waitForSent(undefined, 5_000);
    expect(sent.text).toBe("好可爱");

    const [vision] = visionCalls(scene!);
    expect(vision?.images).toEqual([dataUrl(CAT)]);
    expect(vision?.promptText).toContain("描述这张图片");
    expect(llm.lastRequestWithTool("reply")?.promptText).toContain(
      `Alice(30001): 这张图怎么样[图片：${CAT_DESCRIPTION}]`,
    );
    const described = await bot.waitForEvent("vision.described");
    expect(described.data).toMatchObject({ kind: "image", cached: false, model: "main/scripted-model" });
    expect(described.data.promptTokens).toBeGreaterThan(0);
    expect(llm.unscriptedRequests).toEqual([]);
  });

  it("costs no vision call for the same picture again, by file id or by the same bytes", async () => {
    const { llm, bot, qq, pictures } = await start();
    const url = pictures.serve("/cat.png", { body: CAT });
    llm.enqueue(DESCRIBE_CAT, ...REPLY);
    ask(qq, "看", image("cat.png", url));
    await qq.waitForSent(undefined, 5_000);

    // The same file id: neither fetched nor described again.
    llm.enqueue(...REPLY);
    ask(qq, "再看", image("cat.png", url));
    await bot.turnFinished(2, 5_000);
    expect(pictures.requests).toEqual(["/cat.png"]);
    expect(llm.lastRequestWithTool("reply")?.promptText).toContain(`再看[图片：${CAT_DESCRIPTION}]`);

    // The same bytes under another file id: fetched once more, but no model call.
    const copy = pictures.serve("/copy.png", { body: CAT });
    llm.enqueue(...REPLY);
    ask(qq, "转发的", image("copy.png", copy));
    await bot.turnFinished(3, 5_000);
    expect(pictures.requests).toEqual(["/cat.png", "/copy.png"]);
    expect(llm.lastRequestWithTool("reply")?.promptText).toContain(`转发的[图片：${CAT_DESCRIPTION}]`);
    expect(visionCalls(scene!)).toHaveLength(1);
    const cached = await bot.waitForEvent("vision.described", (event) => event.data.cached === true);
    expect(cached.data).toMatchObject({ kind: "image", model: "main/scripted-model" });
    expect(llm.unscriptedRequests).toEqual([]);
  });

  it("describes a picture posted before the question, from the history window", async () => {
    const { llm, bot, qq, pictures } = await start();
    const url = pictures.serve("/cat.png", { body: CAT });
    qq.pushGroupMessage({
      groupId: GROUP,
      userId: ALICE,
      nickname: "Alice",
      message: [image("cat.png", url)],
    });
    await bot.waitForEvent("message.ingested");
    // Pictures are fetched only when a prompt shows them, not as they arrive.
    expect(pictures.requests).toEqual([]);
    llm.enqueue(DESCRIBE_CAT, ...REPLY);
    ask(qq, "你觉得上面那张图呢");
    await qq.waitForSent(undefined, 5_000);
    expect(llm.lastRequestWithTool("reply")?.promptText).toContain(
      `Alice(30001): [图片：${CAT_DESCRIPTION}]`,
    );
  });

  it("leaves a picture in chatter undescribed until a turn points at it (media.vision.onDemand)", async () => {
    const { llm, bot, qq, pictures } = await start();
    const url = pictures.serve("/cat.png", { body: CAT });
    const catId = qq.pushGroupMessage({
      groupId: GROUP,
      userId: ALICE,
      nickname: "Alice",
      message: [image("cat.png", url)],
    });
    qq.pushGroupMessage({
      groupId: GROUP,
      userId: "30002",
      nickname: "Bob",
      message: [{ type: "text", data: { text: "哈哈哈" } }],
    });
    await waitFor(() => bot.events.filter((event) => event.type === "message.ingested").length >= 2);
    // Two messages before the question: nobody points at the picture, so it costs no vision call.
    llm.enqueue(...REPLY);
    ask(qq, "大家好");
    await qq.waitForSent(undefined, 5_000);
    expect(visionCalls(scene!)).toEqual([]);
    expect(pictures.requests).toEqual([]);
    expect(llm.lastRequestWithTool("reply")?.promptText).toContain("Alice(30001): [图片]");

    // Quoted, it is described.
    llm.enqueue(DESCRIBE_CAT, ...REPLY);
    qq.pushGroupMessage({
      groupId: GROUP,
      userId: ALICE,
      nickname: "Alice",
      message: [{ type: "reply", data: { id: catId } }, ...mention("这是什么")],
    });
    await qq.waitForSent((sent) => sent.text === "好可爱" && qq.sent.length === 2, 5_000);
    expect(visionCalls(scene!)).toHaveLength(1);
    expect(llm.lastRequestWithTool("reply")?.promptText).toContain(CAT_DESCRIPTION);
  });

  it("shows a sticker's meaning as [表情：…] (the answer's first line, unbracketed), asked with the sticker prompt", async () => {
    const { llm, qq, pictures } = await start();
    const sticker = onePixelPng(0, 0, 255);
    const url = pictures.serve("/sticker.png", { body: sticker });
    // Brackets and a second line in the answer would break the transcript's `[表情：…]`.
    llm.enqueue(describeBy(new Map([[dataUrl(sticker), "【无语】\n表达了无奈的情绪"]])), ...REPLY);
    ask(qq, "哈", image("s.png", url, 1));
    await qq.waitForSent(undefined, 5_000);
    expect(visionCalls(scene!)[0]?.promptText).toContain("表情包");
    expect(llm.lastRequestWithTool("reply")?.promptText).toContain("哈[表情：无语]");
  });

  it("knows a sticker by go-cqhttp's, Lagrange's and LLOneBot's `subType` spelling too", async () => {
    const { llm, qq, pictures } = await start();
    const sticker = onePixelPng(0, 0, 255);
    const url = pictures.serve("/sticker.png", { body: sticker });
    llm.enqueue(describeBy(new Map([[dataUrl(sticker), "无语"]])), ...REPLY);
    ask(qq, "哈", { type: "image", data: { file: "s.image", url, subType: "1" } });
    await qq.waitForSent(undefined, 5_000);
    expect(visionCalls(scene!)[0]?.promptText).toContain("表情包");
    expect(llm.lastRequestWithTool("reply")?.promptText).toContain("哈[表情：无语]");
  });

  it("describes at most media.vision.maxPerTurn pictures a turn; the rest stay placeholders", async () => {
    const { llm, bot, qq, pictures } = await start({
      ...WITH_VISION,
      media: { allowPrivateNetworks: true, vision: { maxPerTurn: 2 } },
    });
    const descriptions = new Map<string, string>();
    const segments = [0, 1, 2, 3, 4].map((index) => {
      const bytes = onePixelPng(index * 40, 0, 0);
      descriptions.set(dataUrl(bytes), `第${index}张图`);
      return image(`p${index}.png`, pictures.serve(`/p${index}.png`, { body: bytes }));
    });
    llm.enqueue(describeBy(descriptions), describeBy(descriptions), ...REPLY);
    ask(qq, "这些图", ...segments);
    await qq.waitForSent(undefined, 5_000);
    expect(visionCalls(scene!)).toHaveLength(2);
    expect(pictures.requests).toHaveLength(2);
    const prompt = llm.lastRequestWithTool("reply")!.promptText;
    expect(prompt.match(/\[图片：第\d张图\]/g)).toHaveLength(2);
    expect(prompt.match(/\[图片\]/g)).toHaveLength(3);
    const skipped = await bot.waitForEvent("vision.skipped");
    expect(skipped.data).toEqual({ count: 3, reason: "turn cap" });
    expect(llm.unscriptedRequests).toEqual([]);
  });

  it("stops describing for the day at media.vision.maxPerDay vision calls", async () => {
    const { llm, bot, qq, pictures } = await start({
      ...WITH_VISION,
      media: { allowPrivateNetworks: true, vision: { maxPerDay: 1 } },
    });
    const dog = onePixelPng(90, 60, 30);
    const catUrl = pictures.serve("/cat.png", { body: CAT });
    const dogUrl = pictures.serve("/dog.png", { body: dog });
    llm.enqueue(DESCRIBE_CAT, ...REPLY);
    ask(qq, "猫", image("cat.png", catUrl));
    await bot.turnFinished(1, 5_000);
    llm.enqueue(...REPLY);
    ask(qq, "狗", image("dog.png", dogUrl));
    await bot.turnFinished(2, 5_000);
    expect(visionCalls(scene!)).toHaveLength(1);
    expect(pictures.requests).toEqual(["/cat.png"]);
    const prompt = llm.lastRequestWithTool("reply")!.promptText;
    expect(prompt).toContain(`猫[图片：${CAT_DESCRIPTION}]`);
    expect(prompt).toContain("狗[图片]");
    expect((await bot.waitForEvent("vision.skipped")).data).toEqual({ count: 1, reason: "daily cap" });
    expect(llm.unscriptedRequests).toEqual([]);
  });

  it("keeps a picture that cannot be fetched as a placeholder, says why, and still replies", async () => {
    const { llm, bot, qq, pictures } = await start();
    llm.enqueue(...REPLY);
    ask(qq, "这图呢", image("gone.png", `${pictures.baseUrl}/gone.png`));
    const sent = await qq.waitForSent(undefined, 5_000);
    expect(sent.text).toBe("好可爱");
    const failed: MonitorEvent = await bot.waitForEvent("vision.failed");
    expect(failed.data).toMatchObject({ kind: "image", stage: "fetch" });
    expect(String(failed.data.reason)).toContain("404");
    expect(llm.lastRequestWithTool("reply")?.promptText).toContain("这图呢[图片]");
    expect(visionCalls(scene!)).toHaveLength(0);
  });

  it("gives up on a picture after media.vision.timeoutMs and replies without it", async () => {
    const { llm, bot, qq, pictures } = await start({
      ...WITH_VISION,
      media: { allowPrivateNetworks: true, vision: { timeoutMs: 300 } },
    });
    const url = pictures.serve("/cat.png", { body: CAT });
    llm.enqueue({ text: CAT_DESCRIPTION, delayMs: 3_000 }, ...REPLY);
    ask(qq, "这图呢", image("cat.png", url));
    const sent = await qq.waitForSent(undefined, 5_000);
    expect(sent.text).toBe("好可爱");
    const failed = await bot.waitForEvent("vision.failed");
    expect(failed.data).toMatchObject({ kind: "image", stage: "model" });
    expect(String(failed.data.reason)).toContain("longer than 300 ms");
    expect(llm.lastRequestWithTool("reply")?.promptText).toContain("这图呢[图片]");
  });

  it("shows described pictures inside a quoted merged forward", async () => {
    const { llm, qq, pictures } = await start();
    const url = pictures.serve("/cat.png", { body: CAT });
    qq.setForward("F1", {
      messages: [
        {
          message_id: 1,
          time: 1_700_000_000,
          sender: { user_id: 10002, nickname: "李四", card: "" },
          message: [image("cat.png", url)],
        },
      ],
    });
    llm.enqueue(DESCRIBE_CAT, ...REPLY);
    ask(qq, "看看这个", { type: "forward", data: { id: "F1" } });
    await qq.waitForSent(undefined, 5_000);
    expect(llm.lastRequestWithTool("reply")?.promptText).toMatch(
      /李四\(10002\) [\d:]+：\[图片：一只橘猫趴在键盘上\]/,
    );
  });

  it("fetches nothing without a vision model, and the picture stays [图片]", async () => {
    const { llm, qq, pictures } = await start({ media: { allowPrivateNetworks: true } });
    const url = pictures.serve("/cat.png", { body: CAT });
    llm.enqueue(...REPLY);
    ask(qq, "看", image("cat.png", url));
    await qq.waitForSent(undefined, 5_000);
    expect(pictures.requests).toEqual([]);
    expect(llm.lastRequestWithTool("reply")?.promptText).toContain("看[图片]");
    expect(visionCalls(scene!)).toHaveLength(0);
  });
});
