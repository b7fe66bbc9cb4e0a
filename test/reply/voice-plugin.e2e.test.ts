import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { timelineOf } from "../support/bot-api.ts";
import type { BotHarness } from "../support/bot-harness.ts";
import { ALICE, GROUP, mention } from "../support/messages.ts";
import type { OneBotStandIn, SentMessage } from "../support/onebot-standin.ts";
import { type Scene, startScene } from "../support/scene.ts";
import type { ScriptedLlmServer } from "../support/scripted-llm-server.ts";
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

describe("the built-in voice plugin (the reference voice reply example, espeak-ng)", () => {
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
