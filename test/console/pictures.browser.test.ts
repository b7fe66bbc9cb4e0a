/**
 * Chat pictures in the console, in a real browser: shown through the bot (the page never
 * contacts the picture's server), with their descriptions and the vision call on the timeline.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBot } from "../support/bot-harness.ts";
import { browserPages } from "../support/browser-pages.ts";
import { ALICE, GROUP, groupSession, mention } from "../support/messages.ts";
import {
  DESCRIBES_LOCAL_PICTURES,
  type PictureServer,
  startPictureServer,
} from "../support/picture-server.ts";
import { JPEG_2X2, PNG_1X1 } from "../support/pictures.ts";
import { type Scene, startScene } from "../support/scene.ts";
import { toneWav } from "./weather-plugin.ts";

const TOKEN = "pictures-browser-token";
const CAT = "一只橘猫趴在键盘上";

describe("pictures in the console", () => {
  const pages = browserPages();
  let scene: Scene;
  let pictures: PictureServer;

  beforeAll(async () => {
    pictures = await startPictureServer();
    scene = await startScene({
      config: { server: { token: TOKEN }, ...DESCRIBES_LOCAL_PICTURES },
    });
  });
  afterAll(async () => {
    await scene?.close();
    await pictures?.close();
  });

  async function open(baseUrl: string, path: string): Promise<Page> {
    const page = await pages.blank({ token: TOKEN });
    // The page may load pictures only from the bot: a request to the picture server is a leak.
    const contacted: string[] = [];
    page.on("request", (request) => contacted.push(request.url()));
    await page.goto(`${baseUrl}${path}`);
    Object.assign(page, { contacted });
    return page;
  }

  /** The picture's decoded width once loaded: 0 when the browser could not decode it. */
  const rendered = (img: ReturnType<Page["locator"]>) =>
    img.evaluate((element) => {
      // Runs in the page; the test's tsconfig has no DOM types.
      const image = element as unknown as { complete: boolean; naturalWidth: number };
      return image.complete ? image.naturalWidth : 0;
    });

  it("shows a chat's picture through the bot with its description, and a broken one with the reason", async () => {
    const catUrl = pictures.serve("/cat.jpg", { body: JPEG_2X2 });
    const pageUrl = pictures.serve("/page.png", { body: Buffer.from("<html>not a picture</html>") });
    scene.llm.enqueue({ text: CAT }, { toolCalls: [{ name: "no_reply", arguments: { reason: "看图" } }] });
    scene.qq.pushGroupMessage({
      groupId: GROUP,
      userId: ALICE,
      nickname: "Alice",
      message: [...mention("看我的猫"), { type: "image", data: { file: "cat.jpg", url: catUrl } }],
    });
    await scene.bot.waitForEvent("vision.described");
    scene.qq.pushGroupMessage({
      groupId: GROUP,
      userId: ALICE,
      nickname: "Alice",
      message: [{ type: "image", data: { file: "page.png", url: pageUrl } }],
    });
    await scene.bot.turnFinished();

    const page = await open(scene.bot.baseUrl, "/chats");
    await page.locator(".turn-list button", { hasText: groupSession() }).click();
    const picture = page.locator(".history img.picture");
    await picture.waitFor();
    await expect.poll(() => rendered(picture)).toBe(2);
    expect(await picture.getAttribute("src")).toMatch(/^blob:/);
    await expect.poll(() => page.locator(".history .picture-description").textContent()).toContain(CAT);
    const broken = page.locator(".history .picture-placeholder");
    await expect.poll(() => broken.textContent()).toContain("not a picture");

    const contacted = (page as unknown as { contacted: string[] }).contacted;
    expect(contacted.filter((url) => url.startsWith(pictures.baseUrl))).toEqual([]);
    expect(contacted.some((url) => url.includes("/api/pictures?"))).toBe(true);
  });

  it("plays a chat's voice message through the bot, never from its own address", async () => {
    const voiceUrl = pictures.serve("/voice.wav", { body: toneWav(), contentType: "text/html" });
    const messageId = scene.qq.pushGroupMessage({
      groupId: GROUP,
      userId: ALICE,
      nickname: "Alice",
      message: [{ type: "record", data: { file: "voice.amr", url: voiceUrl } }],
    });
    await scene.bot.waitForEvent("message.ingested", (event) => event.data.messageId === messageId);

    const page = await open(scene.bot.baseUrl, "/chats");
    await page.locator(".turn-list button", { hasText: groupSession() }).click();
    const voice = page.locator(".history audio.voice");
    await voice.waitFor();
    expect(await voice.getAttribute("src")).toMatch(/^blob:/);
    // The browser decoded it: a 0.3 s tone has a duration.
    await page.waitForFunction("document.querySelector('.history audio.voice')?.duration > 0.2");

    const contacted = (page as unknown as { contacted: string[] }).contacted;
    expect(contacted.filter((url) => url.startsWith(pictures.baseUrl))).toEqual([]);
    expect(contacted.some((url) => url.includes("/api/records?"))).toBe(true);
  });

  it("shows the vision call on the timeline with its model and tokens", async () => {
    const described = await scene.bot.waitForEvent("vision.described");
    const page = await open(scene.bot.baseUrl, `/monitor/${described.replyId}`);
    const event = page.locator("[data-event-type='vision.described']");
    await event.waitFor();
    const text = await event.textContent();
    expect(text).toContain("main/scripted-model");
    expect(text).toContain(`${described.data.promptTokens} + ${described.data.completionTokens}`);
    expect(text).not.toContain("{");
    await expect.poll(() => rendered(page.locator("[data-event-type='turn.started'] img.picture"))).toBe(2);
  });

  it("shows a playground picture the moment it is posted, and its description once described", async () => {
    const page = await open(scene.bot.baseUrl, "/playground");
    await page.locator(".chat-list").waitFor();
    const dog = "一只小狗在草地上";
    scene.llm.enqueue({ text: dog }, { toolCalls: [{ name: "no_reply", arguments: { reason: "看图" } }] });
    await fetch(`${scene.bot.baseUrl}/api/playground/messages`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({
        chatType: "group",
        groupId: "20000",
        userId: "30001",
        senderName: "小明",
        segments: [
          { type: "at", data: { qq: "10000", name: "紬" } },
          { type: "image", data: { file: `base64://${PNG_1X1.toString("base64")}` } },
        ],
      }),
    });
    const bubble = page.locator(".bubble-row.mine").last();
    const picture = bubble.locator("img.picture");
    await picture.waitFor();
    await expect.poll(() => rendered(picture)).toBe(1);
    expect(await picture.getAttribute("src")).toMatch(/^blob:/);
    await expect.poll(() => bubble.locator(".picture-description").textContent()).toContain(dog);
  });

  it("says on the models page that local models cannot see pictures", async () => {
    const local = await startBot({
      config: {
        server: { token: TOKEN },
        llm: {
          providers: [{ id: "local", type: "llama-cpp", model: "tiny", gpu: false }],
          models: { planner: ["local/tiny"], replyer: ["local/tiny"], vision: ["local/tiny"] },
        },
      },
    });
    try {
      const page = await open(local.baseUrl, "/models");
      await expect.poll(() => page.locator("output.banner").textContent()).toContain("本地模型看不到图片");
    } finally {
      await local.dispose();
    }
  });
});
