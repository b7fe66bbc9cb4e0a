import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { timelineOf } from "../support/bot-api.ts";
import { type BotHarness, storedRows } from "../support/bot-harness.ts";
import { MediaStandIn } from "../support/media-standin.ts";
import { ALICE, GROUP, mention } from "../support/messages.ts";
import type { OneBotStandIn, SentMessage } from "../support/onebot-standin.ts";
import { type Scene, startScene } from "../support/scene.ts";
import { ScriptedLlmServer } from "../support/scripted-llm-server.ts";
import { waitFor } from "../support/wait.ts";
import { sendActions } from "./extension-fixtures.ts";

/** The built-in plugins folder, where `plugins/voice` lives. */
const BUILTIN_PLUGINS = fileURLToPath(new URL("../../plugins", import.meta.url));
const SPEAKABLE = "这次回复会转成语音，请使用适合朗读的自然口语。";

interface Wav {
  format: number;
  channels: number;
  sampleRate: number;
  bitsPerSample: number;
  samples: Int16Array;
}

/** Decodes a PCM WAV file the way a strict player does: every size must add up. */
function decodeWav(bytes: Buffer): Wav {
  expect(bytes.toString("ascii", 0, 4)).toBe("RIFF");
  expect(bytes.toString("ascii", 8, 12)).toBe("WAVE");
  expect(bytes.readUInt32LE(4)).toBe(bytes.length - 8);
  let offset = 12;
  let fmt: Omit<Wav, "samples"> | undefined;
  while (offset + 8 <= bytes.length) {
    const id = bytes.toString("ascii", offset, offset + 4);
    const size = bytes.readUInt32LE(offset + 4);
    const body = offset + 8;
    if (id === "fmt ") {
      fmt = {
        format: bytes.readUInt16LE(body),
        channels: bytes.readUInt16LE(body + 2),
        sampleRate: bytes.readUInt32LE(body + 4),
        bitsPerSample: bytes.readUInt16LE(body + 14),
      };
    } else if (id === "data") {
      expect(body + size).toBe(bytes.length);
      const data = bytes.subarray(body, body + size);
      const samples = new Int16Array(data.buffer.slice(data.byteOffset, data.byteOffset + size));
      return { ...fmt!, samples };
    }
    offset = body + size + (size % 2);
  }
  throw new Error("no data chunk");
}

/** The audio of a sent `record` segment (`base64://…`). */
function recordAudio(sent: SentMessage): Buffer {
  const record = (sent.message as Array<{ type: string; data: { file: string } }>).find(
    (segment) => segment.type === "record",
  );
  expect(record?.data.file.startsWith("base64://")).toBe(true);
  return Buffer.from(record!.data.file.slice("base64://".length), "base64");
}

describe("the built-in voice plugin without a tts model (the reference voice reply example, espeak-ng)", () => {
  let llm: ScriptedLlmServer;
  let bot: BotHarness;
  let scene: Scene | undefined;
  let qq: OneBotStandIn;

  const start = async (voiceConfig: Record<string, unknown> = {}) => {
    scene = await startScene({
      config: { plugins: { dirs: [BUILTIN_PLUGINS], config: { voice_plugin: voiceConfig } } },
    });
    ({ llm, bot, qq } = scene);
  };
  const replyWith = async (args: Record<string, unknown>, text: string) => {
    llm.enqueue({ toolCalls: [{ name: "reply", arguments: args }] }, { text });
    const messageId = qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: mention("用语音说") });
    return { messageId, ended: await bot.turnFinished() };
  };

  afterEach(async () => {
    await scene?.close();
    scene = undefined;
  });

  it("sends the reply as a decodable WAV voice message instead of text when keep_text is false", async () => {
    await start();
    const { ended } = await replyWith(
      { plugin_options: { "voice_plugin.voice": { attach_voice: true, keep_text: false } } },
      "大家晚上好，今天辛苦了",
    );
    expect(ended.data.status).toBe("replied");
    const planner = llm.requestsWithTool("reply")[0]!;
    const declared = planner.body.tools?.find((tool) => tool.function.name === "reply")?.function
      .parameters as {
      properties: { plugin_options: { properties: Record<string, unknown> } };
    };
    expect(declared.properties.plugin_options.properties["voice_plugin.voice"]).toMatchObject({
      description: "需要语音回复时启用，可选择同时保留文字",
      properties: {
        attach_voice: { type: "boolean", default: false },
        keep_text: { type: "boolean", default: true },
      },
    });
    // prepare asked the replyer for speakable text.
    expect(llm.lastRequestWithoutTool("reply")!.promptText).toContain(SPEAKABLE);

    expect(qq.sent).toHaveLength(1);
    const [voice] = qq.sent as [SentMessage];
    expect((voice.message as Array<{ type: string }>).map((segment) => segment.type)).toEqual(["record"]);
    const wav = decodeWav(recordAudio(voice));
    expect(wav).toMatchObject({ format: 1, channels: 1, bitsPerSample: 16 });
    const seconds = wav.samples.length / wav.sampleRate;
    expect(seconds).toBeGreaterThan(0.5);
    expect(seconds).toBeLessThan(30);
    const loudest = wav.samples.reduce((most, sample) => Math.max(most, Math.abs(sample)), 0);
    expect(loudest).toBeGreaterThan(1_000); // speech, not silence

    // Both phases are on the monitor timeline under the reply, the audio shown by its size only.
    const events = (await timelineOf(bot, String(ended.replyId)))
      .filter((event) => event.type === "reply.extension")
      .map((event) => event.data);
    expect(events).toMatchObject([
      { extension: "voice_plugin.voice", phase: "prepare", status: "ok", extraPrompt: SPEAKABLE },
      {
        extension: "voice_plugin.voice",
        phase: "before_send",
        status: "ok",
        parameters: { attach_voice: true, keep_text: false },
        messages: [
          { segments: [{ type: "voice", data: "大家晚上好，今天辛苦了", bytes: expect.any(Number) }] },
        ],
      },
    ]);
  });

  it("keeps the text (quoted per set_quote) and adds the voice after it by default", async () => {
    await start();
    const { messageId } = await replyWith(
      { set_quote: true, plugin_options: { "voice_plugin.voice": { attach_voice: true } } },
      "好的",
    );
    expect(
      qq.sent.map((sent) => (sent.message as Array<{ type: string }>).map((segment) => segment.type)),
    ).toEqual([["reply", "text"], ["record"]]);
    expect((qq.sent[0]!.message as Array<{ data: Record<string, string> }>)[0]!.data.id).toBe(messageId);
    expect(decodeWav(recordAudio(qq.sent[1]!)).samples.length).toBeGreaterThan(0);
  });

  it("leaves the reply alone when selected without attach_voice (its default is false)", async () => {
    await start();
    await replyWith({ plugin_options: { "voice_plugin.voice": {} } }, "只发文字");
    expect(llm.lastRequestWithoutTool("reply")!.promptText).not.toContain(SPEAKABLE);
    expect(qq.sent.map((sent) => sent.message)).toEqual([[{ type: "text", data: { text: "只发文字" } }]]);
  });

  it("fails the reply with a clear error, sending nothing, when espeak-ng is missing", async () => {
    await start({ command: "/nonexistent/espeak-ng" });
    const { ended } = await replyWith(
      { plugin_options: { "voice_plugin.voice": { attach_voice: true, keep_text: true } } },
      "这句不会发出去",
    );
    expect(ended.data.status).toBe("failed");
    expect(String(ended.data.reason)).toContain(
      "reply extension voice_plugin.voice failed in before_send: /nonexistent/espeak-ng is not installed: install the Debian package espeak-ng",
    );
    expect(sendActions(qq)).toEqual([]);
  });
});

/**
 * With `llm.models.tts` set, the voice plugin speaks through the host's tts task (the plugin
 * context's `speech`): the speech server is test/support/media-standin.ts, built from
 * OpenAI's `POST /v1/audio/speech` reference (platform.openai.com/docs/api-reference/audio/createSpeech).
 * espeak-ng is set to a program that does not exist, so any use of it would fail the reply.
 */
describe("the built-in voice plugin with a tts model (llm.models.tts)", () => {
  let scene: Scene | undefined;
  let media: MediaStandIn | undefined;

  afterEach(async () => {
    await scene?.close();
    await media?.close();
    scene = undefined;
    media = undefined;
  });

  const start = async (config: Record<string, unknown> = {}) => {
    media = await MediaStandIn.start();
    const llm = await ScriptedLlmServer.start();
    scene = await startScene({
      llm,
      config: {
        bot: { voice: { speech: "nova" } },
        llm: {
          providers: [
            {
              id: "main",
              type: "openai-compatible",
              baseUrl: llm.baseUrl,
              apiKey: "test-key",
              maxRetries: 1,
            },
            {
              id: "speech",
              type: "openai-compatible",
              baseUrl: `${media.baseUrl}/v1`,
              apiKey: "speech-key",
              maxRetries: 0,
            },
          ],
          models: {
            planner: ["main/scripted-model"],
            replyer: ["main/scripted-model"],
            tts: ["speech/tts-1"],
          },
        },
        plugins: {
          dirs: [BUILTIN_PLUGINS],
          config: { voice_plugin: { command: "/nonexistent/espeak-ng" } },
        },
        ...config,
      },
    });
    return { ...scene, media };
  };
  const replyWith = async (s: Scene, args: Record<string, unknown>, text: string) => {
    s.llm.enqueue({ toolCalls: [{ name: "reply", arguments: args }] }, { text });
    s.qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: mention("用语音说") });
    return s.bot.turnFinished();
  };
  const voiceOnly = { plugin_options: { "voice_plugin.voice": { attach_voice: true, keep_text: false } } };

  it("makes one /audio/speech request and sends that audio as a record segment, counted in usage", async () => {
    const s = await start();
    const ended = await replyWith(s, voiceOnly, "大家晚上好");
    expect(ended.data.status).toBe("replied");

    const speech = s.media.requestsTo("/v1/audio/speech");
    expect(speech).toHaveLength(1);
    expect(speech[0]!.body).toEqual({
      model: "tts-1",
      input: "大家晚上好",
      voice: "nova",
      response_format: "wav",
    });

    expect(s.qq.sent).toHaveLength(1);
    const [voice] = s.qq.sent as [SentMessage];
    expect((voice.message as Array<{ type: string }>).map((segment) => segment.type)).toEqual(["record"]);
    // The stand-in's audio with the placeholder sizes OpenAI streams set right.
    expect(recordAudio(voice).equals(s.media.wav)).toBe(true);

    const spoken = await s.bot.waitForEvent("tts.spoken");
    expect(spoken.replyId).toBe(ended.replyId);
    expect(spoken.data).toMatchObject({ model: "speech/tts-1", voice: "nova", chars: 5, format: "wav" });
    // Usage records commit a moment after the call (on PostgreSQL they gather for 100 ms).
    let usage: Array<{ prompt_tokens: number; user_key: string; reply_id: string }> = [];
    await waitFor(async () => {
      usage = await storedRows(
        s.bot.dataDir,
        "SELECT prompt_tokens, user_key, reply_id FROM llm_usage WHERE task = 'tts'",
      );
      return usage.length > 0;
    });
    expect(usage).toEqual([
      { prompt_tokens: 5, user_key: `onebot:${ALICE}`, reply_id: String(ended.replyId) },
    ]);
  });

  it("sends the text when the speech model is down, even with keep_text false", async () => {
    const s = await start();
    s.media.speechDown = true;
    const ended = await replyWith(s, voiceOnly, "这句只能发文字");
    expect(ended.data.status).toBe("replied");
    expect(s.media.requestsTo("/v1/audio/speech")).toHaveLength(1);
    expect(s.qq.sent.map((sent) => sent.message)).toEqual([
      [{ type: "text", data: { text: "这句只能发文字" } }],
    ]);
    const failed = await s.bot.waitForEvent("tts.failed");
    expect(failed.data).toMatchObject({ stage: "model" });
  });

  it("shares the media.tts caps with send_voice: over a member's daily cap the reply is text", async () => {
    const s = await start({ media: { tts: { userMaxPerDay: 1 } } });
    s.llm.enqueue({ toolCalls: [{ name: "send_voice", arguments: { text: "一" } }] }, { text: "第一句" });
    s.qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: mention("发语音") });
    await s.bot.turnFinished(1);
    s.llm.enqueue({ toolCalls: [{ name: "reply", arguments: voiceOnly }] }, { text: "第二句是文字" });
    s.qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: mention("再用语音说") });
    expect((await s.bot.turnFinished(2)).data.status).toBe("replied");
    expect(s.media.requestsTo("/v1/audio/speech")).toHaveLength(1);
    expect(
      s.qq.sent.map((sent) => (sent.message as Array<{ type: string }>).map((segment) => segment.type)),
    ).toEqual([["record"], ["text"]]);
    const refused = await s.bot.waitForEvent("tts.failed");
    expect(refused.data).toMatchObject({
      stage: "cap",
      reason: expect.stringContaining("media.tts.userMaxPerDay (1) reached"),
    });
  });
});
