import { createServer } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { LlmProviderConfig } from "../../src/llm/config.ts";
import { Speaker } from "../../src/llm/speaker.ts";
import type { LlmUsageRecord } from "../../src/llm/types.ts";
import { createLogger } from "../../src/log/logger.ts";
import { MediaCaps } from "../../src/media/media-caps.ts";
import { wavDurationMs, wavWithSizes } from "../../src/util/wav.ts";
import { MediaStandIn, toneWav } from "../support/media-standin.ts";

const logger = createLogger({ level: "silent" });

describe("the tts task (Speaker)", () => {
  let media: MediaStandIn | undefined;
  afterEach(async () => {
    await media?.close();
    media = undefined;
  });

  const speakerOf = (providers: LlmProviderConfig[], tts: string[], usage: LlmUsageRecord[]) =>
    new Speaker({ providers, models: { tts }, usage: (record) => usage.push(record), logger, fetch });

  it("falls back to the next model when one fails, each tried once, every attempt a usage record", async () => {
    media = await MediaStandIn.start();
    const usage: LlmUsageRecord[] = [];
    const speaker = speakerOf(
      [
        {
          id: "down",
          type: "openai-compatible",
          baseUrl: "http://127.0.0.1:1/v1",
          apiKey: "",
          maxRetries: 0,
          headers: {},
          timeoutMs: 2_000,
        },
        {
          id: "up",
          type: "openai-compatible",
          baseUrl: `${media.baseUrl}/v1`,
          apiKey: "",
          maxRetries: 0,
          headers: {},
          timeoutMs: 5_000,
        },
      ],
      ["down/tts-1", "up/tts-1"],
      usage,
    );
    const speech = await speaker.speak({ text: "你好", voices: { up: "shimmer" }, sessionId: "s" });
    expect(speech).toMatchObject({ ref: "up/tts-1", voice: "shimmer", format: "wav", durationMs: 1500 });
    expect(usage.map((record) => [record.provider, record.success, record.promptTokens])).toEqual([
      ["down", false, 0],
      ["up", true, 2],
    ]);
  });

  it("says which GPT-SoVITS voice is missing", async () => {
    media = await MediaStandIn.start();
    const usage: LlmUsageRecord[] = [];
    const speaker = speakerOf(
      [
        {
          id: "sovits",
          type: "gpt-sovits",
          baseUrl: media.baseUrl,
          headers: {},
          textLang: "auto",
          voices: { a: { refAudioPath: "a.wav", promptText: "", promptLang: "zh" } },
          timeoutMs: 5_000,
        },
      ],
      ["sovits/v2"],
      usage,
    );
    expect(await speaker.speak({ text: "你好", voices: { sovits: "b" } })).toBeUndefined();
    expect(usage[0]!.error).toBe('provider sovits (gpt-sovits) has no voice "b" (it has a)');
    expect(media.requests).toEqual([]);
  });

  it("wires edge-tts through node-edge-tts: with no way out (a proxy that refuses) it fails as an attempt, and the next model speaks", async () => {
    // Edge's read-aloud service is on the internet, out of reach of tests: only the wiring is checked.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const { port } = closed.address() as { port: number };
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    media = await MediaStandIn.start();
    const usage: LlmUsageRecord[] = [];
    const speaker = speakerOf(
      [
        { id: "edge", type: "edge-tts", proxy: `http://127.0.0.1:${port}`, timeoutMs: 5_000 },
        {
          id: "up",
          type: "openai-compatible",
          baseUrl: `${media.baseUrl}/v1`,
          apiKey: "",
          maxRetries: 0,
          headers: {},
          timeoutMs: 5_000,
        },
      ],
      ["edge/read-aloud", "up/tts-1"],
      usage,
    );
    const speech = await speaker.speak({ text: "你好", voices: {} });
    expect(speech?.ref).toBe("up/tts-1");
    expect(usage[0]).toMatchObject({ provider: "edge", success: false });
    expect(usage[0]!.error).toMatch(/^Edge read-aloud failed: /);
  }, 30_000);

  it("refuses a chat-only provider plainly", async () => {
    const usage: LlmUsageRecord[] = [];
    const speaker = speakerOf(
      [{ id: "g", type: "gemini", apiKey: "", maxRetries: 0, headers: {}, timeoutMs: 1_000 }],
      ["g/gemini-2.0-flash"],
      usage,
    );
    expect(await speaker.speak({ text: "hi", voices: {} })).toBeUndefined();
    expect(usage[0]!.error).toBe("provider g (gemini) does not speak (no text-to-speech API)");
  });
});

describe("WAV sizes", () => {
  it("sets the placeholder sizes a streaming server writes, and tells the duration", () => {
    const streamed = toneWav(2, true);
    expect(streamed.readUInt32LE(40)).toBe(0xffffffff);
    const fixed = wavWithSizes(streamed)!;
    expect(fixed.equals(toneWav(2))).toBe(true);
    expect(wavDurationMs(streamed)).toBe(2000);
    expect(wavWithSizes(Buffer.from("ID3 not a wav"))).toBeUndefined();
  });
});

describe("media caps", () => {
  it("counts per turn, per member per day and per day, and starts a new day afresh", () => {
    let day = "Mon";
    const caps = new MediaCaps(
      "media.tts",
      () => ({ maxPerTurn: 2, maxPerDay: 3, userMaxPerDay: 2 }),
      () => day,
    );
    expect(caps.take({ replyId: "t1", userKey: "a" })).toBeUndefined();
    expect(caps.take({ replyId: "t1", userKey: "a" })).toBeUndefined();
    expect(caps.take({ replyId: "t1", userKey: "a" })).toBe("media.tts.maxPerTurn (2) reached in this turn");
    expect(caps.take({ replyId: "t2", userKey: "a" })).toBe(
      "media.tts.userMaxPerDay (2) reached today for this member",
    );
    expect(caps.take({ replyId: "t3", userKey: "b" })).toBeUndefined();
    expect(caps.take({ replyId: "t4", userKey: "c" })).toBe("media.tts.maxPerDay (3) reached today");
    day = "Tue";
    expect(caps.take({ replyId: "t5", userKey: "a" })).toBeUndefined();
  });
});
