/**
 * The console plays voice messages through the bot (`/api/records`), never by the browser
 * contacting the host a message names: the bot fetches them with the limits pictures are
 * fetched with, and serves only audio its first bytes prove.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ALICE, GROUP, groupSession } from "../support/messages.ts";
import type { WireSegment } from "../support/onebot-standin.ts";
import { type PictureServer, startPictureServer } from "../support/picture-server.ts";
import { type Scene, startScene } from "../support/scene.ts";
import { silkTone } from "../support/voices.ts";
import { toneWav } from "./weather-plugin.ts";

const TOKEN = "records-token";
const SESSION = groupSession();
/** media.maxBytes for this bot: a 0.3 s tone fits, a 3 s one does not. */
const MAX_BYTES = 20_000;

function record(url: string): WireSegment {
  return { type: "record", data: { file: "voice.amr", url } };
}

describe("voice messages of stored messages, served by the bot", () => {
  let scene: Scene;
  let server: PictureServer;

  beforeAll(async () => {
    server = await startPictureServer();
    scene = await startScene({
      config: { server: { token: TOKEN }, media: { allowPrivateNetworks: true, maxBytes: MAX_BYTES } },
    });
  });
  afterAll(async () => {
    await scene.close();
    await server.close();
  });

  /** Alice posts these segments; resolves with the message id once the bot has stored it. */
  async function post(...segments: WireSegment[]): Promise<string> {
    const messageId = scene.qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: segments });
    await scene.bot.waitForEvent("message.ingested", (event) => event.data.messageId === messageId);
    return messageId;
  }

  const get = (messageId: string, index = 0) =>
    fetch(
      `${scene.bot.baseUrl}/api/records?sessionId=${encodeURIComponent(SESSION)}&messageId=${messageId}&index=${index}`,
      { headers: { authorization: `Bearer ${TOKEN}` } },
    );

  it("answers the audio with its checked type and headers that keep it audio", async () => {
    const tone = toneWav();
    const url = server.serve("/tone.wav", { body: tone, contentType: "text/html" });
    const messageId = await post({ type: "text", data: { text: "听" } }, record(url));

    const answer = await get(messageId, 1);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toBe("audio/wav");
    expect(answer.headers.get("cache-control")).toMatch(/^private\b/);
    expect(answer.headers.get("x-content-type-options")).toBe("nosniff");
    expect(answer.headers.get("content-security-policy")).toBe("default-src 'none'; sandbox");
    expect(answer.headers.get("cross-origin-resource-policy")).toBe("same-origin");
    expect(Buffer.from(await answer.arrayBuffer())).toEqual(tone);
    expect(server.requests).toContain("/tone.wav");

    const text = await get(messageId, 0);
    expect(text.status).toBe(404);
    expect(await text.json()).toMatchObject({
      message: `segment 0 of message ${messageId} is not a voice message with audio`,
    });
  });

  it("refuses what is not audio and what is over media.maxBytes, with one log line each", async () => {
    const page = server.serve("/page.wav", { body: Buffer.from("<html><script>alert(1)</script></html>") });
    const long = server.serve("/long.wav", { body: toneWav(3) });
    const messageId = await post(record(page), record(long));
    const answers = [await get(messageId, 0), await get(messageId, 1)];
    expect(answers.map((answer) => answer.status)).toEqual([502, 502]);
    const reasons = await Promise.all(
      answers.map(async (answer) => ((await answer.json()) as { message: string }).message),
    );
    expect(reasons[0]).toBe("not a playable audio type");
    expect(reasons[1]).toMatch(/^too large/);
    const logged = scene.bot.logs.filter((line) => line.msg === "voice message not fetched");
    expect(logged.map((line) => [line.host, line.reason])).toEqual([
      [new URL(page).host, reasons[0]],
      [new URL(long).host, reasons[1]],
    ]);
  });

  it("plays QQ's SILK voice as WAV, decoded by the bot", async () => {
    const silk = server.serve("/voice.silk", { body: await silkTone(0.2) });
    const answer = await get(await post(record(silk)));
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toBe("audio/wav");
    const wav = Buffer.from(await answer.arrayBuffer());
    expect(wav.toString("latin1", 0, 4)).toBe("RIFF");
    // 0.2 s of 16-bit mono audio at 24 kHz, give or take SILK's last frame.
    expect(wav.length).toBeGreaterThan(9_000);
  });
});
