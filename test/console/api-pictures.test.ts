/**
 * The console shows chat pictures through the bot (`/api/pictures`), never by the browser
 * contacting QQ: the bot fetches them with the chat's fetcher and its limits.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiClient, apiClient } from "../support/api-client.ts";
import { ALICE, GROUP, groupSession, mention, OTHER_GROUP } from "../support/messages.ts";
import type { WireSegment } from "../support/onebot-standin.ts";
import { failureReason, testPictureFetcher } from "../support/picture-fetching.ts";
import {
  DESCRIBES_LOCAL_PICTURES,
  type PictureServer,
  startPictureServer,
} from "../support/picture-server.ts";
import { JPEG_2X2, PNG_1X1 } from "../support/pictures.ts";
import { rawRequest } from "../support/raw-http.ts";
import { type Scene, startScene } from "../support/scene.ts";

const TOKEN = "pictures-token";
const SESSION = groupSession();

function image(file: string, url: string): WireSegment {
  return { type: "image", data: { file, url } };
}

/** Alice posts these segments; resolves with the message id once the bot has stored it. */
async function post(scene: Scene, ...segments: WireSegment[]): Promise<string> {
  const messageId = scene.qq.pushGroupMessage({
    groupId: GROUP,
    userId: ALICE,
    nickname: "Alice",
    message: segments,
  });
  await scene.bot.waitForEvent("message.ingested", (event) => event.data.messageId === messageId);
  return messageId;
}

const pictureUrl = (messageId: string, index = 0, sessionId = SESSION) =>
  `/api/pictures?sessionId=${encodeURIComponent(sessionId)}&messageId=${messageId}&index=${index}`;

describe("pictures of stored messages, served by the bot", () => {
  let scene: Scene;
  let pictures: PictureServer;
  let api: ApiClient;
  const get = (path: string, token = TOKEN) =>
    fetch(`${scene.bot.baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });

  beforeAll(async () => {
    pictures = await startPictureServer();
    scene = await startScene({
      config: { server: { token: TOKEN }, ...DESCRIBES_LOCAL_PICTURES },
    });
    api = apiClient(scene.bot.baseUrl, TOKEN);
  });
  afterAll(async () => {
    await scene.close();
    await pictures.close();
  });

  it("answers the picture's bytes with its checked type and headers that keep it a picture", async () => {
    const url = pictures.serve("/photo.jpg", { body: JPEG_2X2, contentType: "text/html" });
    const messageId = await post(scene, { type: "text", data: { text: "看" } }, image("photo.jpg", url));

    const answer = await get(pictureUrl(messageId, 1));
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toBe("image/jpeg");
    expect(answer.headers.get("cache-control")).toMatch(/^private\b/);
    expect(answer.headers.get("x-content-type-options")).toBe("nosniff");
    expect(answer.headers.get("content-security-policy")).toBe("default-src 'none'; sandbox");
    expect(answer.headers.get("cross-origin-resource-policy")).toBe("same-origin");
    expect(Buffer.from(await answer.arrayBuffer())).toEqual(JPEG_2X2);
    expect(pictures.requests).toContain("/photo.jpg");
    const undescribed = await api.get(
      pictureUrl(messageId, 1).replace("/api/pictures?", "/api/pictures/description?"),
    );
    expect(undescribed.body).toEqual({ description: null });

    const text = await api.get(pictureUrl(messageId, 0));
    expect(text.status).toBe(404);
    expect(text.body.message).toBe(`segment 0 of message ${messageId} is not a picture`);
    const unknown = await api.get(pictureUrl("999999"));
    expect(unknown.status).toBe(404);
  });

  it("refuses a missing or wrong token like every console route", async () => {
    const url = pictures.serve("/private.png", { body: PNG_1X1 });
    const messageId = await post(scene, image("private.png", url));
    const before = pictures.requests.length;
    for (const token of ["", "wrong"]) {
      const answer = await get(pictureUrl(messageId), token);
      expect(answer.status).toBe(401);
    }
    expect(pictures.requests.length).toBe(before);
  });

  it("refuses an HTML page posing as a picture with the fetcher's reason", async () => {
    const page = Buffer.from("<!DOCTYPE html><script>alert(1)</script>");
    const url = pictures.serve("/evil.png", { body: page, contentType: "image/png" });
    const messageId = await post(scene, image("evil.png", url));

    const answer = await api.get(pictureUrl(messageId));
    expect(answer.status).toBe(502);
    expect(answer.body).toEqual({
      error: "picture_unavailable",
      message: 'not a picture (starts with "<!DOCTYPE ht")',
    });
  });

  it("decodes a playground picture itself and refuses an SVG sent the same way", async () => {
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
    const posted = await api.post("/api/playground/messages", {
      chatType: "group",
      groupId: "20000",
      userId: "30001",
      senderName: "Alice",
      segments: [
        { type: "image", data: { file: `base64://${PNG_1X1.toString("base64")}` } },
        { type: "image", data: { file: `base64://${svg.toString("base64")}` } },
      ],
    });
    const { sessionId, messageId } = posted.body.message;

    const png = await get(pictureUrl(messageId, 0, sessionId));
    expect(png.status).toBe(200);
    expect(png.headers.get("content-type")).toBe("image/png");
    expect(Buffer.from(await png.arrayBuffer())).toEqual(PNG_1X1);
    const refused = await api.get(pictureUrl(messageId, 1, sessionId));
    expect(refused.status).toBe(502);
    expect(refused.body.message).toMatch(/^not a picture/);
  });

  it("gives the stored description once the vision model has described the picture", async () => {
    // A chat of its own: no other picture in the history window takes the scripted description.
    const session = groupSession(OTHER_GROUP);
    const url = pictures.serve("/cat.png", { body: PNG_1X1 });
    scene.llm.enqueue(
      { text: "一只橘猫" },
      { toolCalls: [{ name: "no_reply", arguments: { reason: "看看" } }] },
    );
    const messageId = scene.qq.pushGroupMessage({
      groupId: OTHER_GROUP,
      userId: ALICE,
      nickname: "Alice",
      message: [...mention("你看"), image("cat.png", url)],
    });
    const path = `/api/pictures/description?sessionId=${encodeURIComponent(session)}&messageId=${messageId}&index=2`;
    await scene.bot.waitForEvent("vision.described", (event) => event.sessionId === session);

    const answer = await api.get(path);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      description: { kind: "image", text: "一只橘猫", model: "main/scripted-model" },
    });
  });
});

describe("pictures without a token, with private addresses refused", () => {
  let scene: Scene;
  let pictures: PictureServer;

  beforeAll(async () => {
    pictures = await startPictureServer();
    scene = await startScene();
  });
  afterAll(async () => {
    await scene.close();
    await pictures.close();
  });

  it("refuses a picture on a private address with the fetcher's reason, and never fetches it", async () => {
    const url = pictures.serve("/lan.png", { body: PNG_1X1 });
    const messageId = await post(scene, image("lan.png", url));
    const expected = failureReason(await testPictureFetcher().fetch({ kind: "image", url }));

    const answer = await apiClient(scene.bot.baseUrl).get(pictureUrl(messageId));
    expect(answer.status).toBe(502);
    expect(answer.body).toEqual({ error: "picture_unavailable", message: expected });
    expect(expected).toMatch(/private|loopback/);
    expect(pictures.requests).toEqual([]);
  });

  it("refuses other sites: a foreign Origin or a rebound host name", async () => {
    const url = pictures.serve("/page.png", { body: PNG_1X1 });
    const messageId = await post(scene, image("page.png", url));
    const port = scene.bot.app.address.port;
    const crossSite = await rawRequest(port, {
      method: "GET",
      target: pictureUrl(messageId),
      headers: { origin: "http://evil.example" },
    });
    expect(crossSite.status).toBe(403);
    const rebound = await rawRequest(port, {
      method: "GET",
      target: pictureUrl(messageId),
      headers: { host: `evil.example:${port}` },
    });
    expect(rebound.status).toBe(403);
  });
});
