import { describe, expect, it } from "vitest";
import { askWithPictures as ask, imageSegment as image, pictureScenes } from "../support/picture-scene.ts";
import { JPEG_2X2, PNG_1X1 } from "../support/pictures.ts";
import type { Scene } from "../support/scene.ts";
import type { RecordedLlmRequest } from "../support/scripted-llm-server.ts";

/** A second model name on the scripted server: the one the config marks as seeing (or not). */
const SEEING = "main/seeing-model";
const REPLY = [{ toolCalls: [{ name: "reply", arguments: {} }] }, { text: "看到了" }];
const PNG_URL = `data:image/png;base64,${PNG_1X1.toString("base64")}`;
const JPEG_URL = `data:image/jpeg;base64,${JPEG_2X2.toString("base64")}`;

const plannerRequests = (s: Scene) => s.llm.requests.filter((request) => request.toolNames.includes("reply"));
const replyerRequest = (s: Scene): RecordedLlmRequest | undefined =>
  s.llm.requests.findLast((request) => request.toolNames.length === 0);

describe("a planner or replyer model that accepts images looks at the new messages' pictures", () => {
  const startWithPictures = pictureScenes();
  /** The bot (no vision model unless `llm` names one), allowed to fetch from the picture server on 127.0.0.1. */
  const start = (llm: Record<string, unknown>, media: Record<string, unknown> = {}) =>
    startWithPictures({ llm, media: { allowPrivateNetworks: true, ...media } });

  it("sends the triggering picture to a marked planner and replyer, besides the text, without a vision model", async () => {
    const scene = await start({ acceptsImages: ["main/scripted-model"] });
    const url = scene.pictures.serve("/shot.png", { body: PNG_1X1 });
    scene.llm.enqueue(...REPLY);
    ask(scene, "这张截图哪里错了", image("shot.png", url));
    expect((await scene.qq.waitForSent(undefined, 5_000)).text).toBe("看到了");
    const [planner] = plannerRequests(scene);
    expect(planner?.images).toEqual([PNG_URL]);
    expect(planner?.promptText).toContain("这张截图哪里错了[图片]");
    expect(replyerRequest(scene)?.images).toEqual([PNG_URL]);
    // Fetched once for the turn, though two models looked.
    expect(scene.pictures.requests).toEqual(["/shot.png"]);
    expect(scene.llm.unscriptedRequests).toEqual([]);
  });

  it("with a vision model too: the planner gets the description and the picture, fetched once", async () => {
    const scene = await start({
      acceptsImages: ["main/scripted-model"],
      models: { vision: ["main/scripted-model"] },
    });
    const url = scene.pictures.serve("/shot.png", { body: PNG_1X1 });
    scene.llm.enqueue({ text: "一张报错截图" }, ...REPLY);
    ask(scene, "怎么回事", image("shot.png", url));
    await scene.qq.waitForSent(undefined, 5_000);
    const [planner] = plannerRequests(scene);
    expect(planner?.promptText).toContain("怎么回事[图片：一张报错截图]");
    expect(planner?.images).toEqual([PNG_URL]);
    expect(scene.pictures.requests).toEqual(["/shot.png"]);
    expect(scene.llm.unscriptedRequests).toEqual([]);
  });

  it("sends no picture, and fetches none, when no planner or replyer model is marked", async () => {
    const scene = await start({ acceptsImages: [SEEING] });
    const url = scene.pictures.serve("/shot.png", { body: PNG_1X1 });
    scene.llm.enqueue(...REPLY);
    ask(scene, "看图", image("shot.png", url));
    await scene.qq.waitForSent(undefined, 5_000);
    expect(scene.llm.requests.every((request) => request.images.length === 0)).toBe(true);
    expect(scene.pictures.requests).toEqual([]);
  });

  it("shows the picture only to the marked replyer when the planner is not marked", async () => {
    const scene = await start({
      acceptsImages: [SEEING],
      models: { replyer: [SEEING] },
    });
    const url = scene.pictures.serve("/shot.png", { body: PNG_1X1 });
    scene.llm.enqueue(...REPLY);
    ask(scene, "看图", image("shot.png", url));
    await scene.qq.waitForSent(undefined, 5_000);
    expect(plannerRequests(scene)[0]?.images).toEqual([]);
    const replyer = replyerRequest(scene);
    expect(replyer?.body.model).toBe("seeing-model");
    expect(replyer?.images).toEqual([PNG_URL]);
  });

  it("sends a fallback model that cannot see the text alone", async () => {
    const scene = await start({
      acceptsImages: [SEEING],
      models: { planner: [SEEING, "main/scripted-model"] },
    });
    const url = scene.pictures.serve("/shot.png", { body: PNG_1X1 });
    // The seeing model refuses (400: no retry), the planner falls back to the other one.
    scene.llm.enqueue({ status: 400 }, ...REPLY);
    ask(scene, "看图", image("shot.png", url));
    expect((await scene.qq.waitForSent(undefined, 5_000)).text).toBe("看到了");
    const [refused, fallback] = plannerRequests(scene);
    expect(refused?.body.model).toBe("seeing-model");
    expect(refused?.images).toEqual([PNG_URL]);
    expect(fallback?.body.model).toBe("scripted-model");
    expect(fallback?.images).toEqual([]);
    expect(fallback?.promptText).toBe(refused?.promptText);
  });

  it("looks at media.vision.maxPerTurn pictures, in chat order, and skips one that cannot be fetched", async () => {
    const scene = await start({ acceptsImages: ["main/scripted-model"] }, { vision: { maxPerTurn: 2 } });
    const first = scene.pictures.serve("/first.png", { body: PNG_1X1 });
    const second = scene.pictures.serve("/second.jpg", { body: JPEG_2X2 });
    scene.llm.enqueue(...REPLY);
    ask(
      scene,
      "这些图",
      image("gone.png", `${scene.pictures.baseUrl}/gone.png`),
      image("first.png", first),
      image("second.jpg", second),
    );
    expect((await scene.qq.waitForSent(undefined, 5_000)).text).toBe("看到了");
    // The first two are gone.png (404) and first.png: only first.png is shown, second.jpg is not fetched.
    expect(plannerRequests(scene)[0]?.images).toEqual([PNG_URL]);
    expect([...scene.pictures.requests].sort()).toEqual(["/first.png", "/gone.png"]);

    scene.llm.enqueue(...REPLY);
    ask(scene, "再看", image("second.jpg", second), image("first.png", first));
    await scene.bot.turnFinished(2, 5_000);
    expect(plannerRequests(scene).at(-1)?.images).toEqual([JPEG_URL, PNG_URL]);
  });

  it("keeps the timeline's prompts small: an image is recorded by type and size, not by its bytes", async () => {
    const scene = await start({ acceptsImages: ["main/scripted-model"] });
    const url = scene.pictures.serve("/shot.png", { body: PNG_1X1 });
    scene.llm.enqueue(...REPLY);
    ask(scene, "看图", image("shot.png", url));
    const round = await scene.bot.waitForEvent("planner.round");
    const prompt = round.data.prompt as Array<{ role: string; images?: unknown }>;
    expect(prompt.find((message) => message.role === "user")?.images).toEqual([
      { mime: "image/png", bytes: PNG_1X1.length },
    ]);
    const generated = await scene.bot.waitForEvent("replyer.generated");
    expect(JSON.stringify(generated.data.prompt)).toContain(`"bytes":${PNG_1X1.length}`);
  });
});
