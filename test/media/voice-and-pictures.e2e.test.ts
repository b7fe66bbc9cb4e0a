import { afterEach, describe, expect, it } from "vitest";
import { storedRows } from "../support/bot-harness.ts";
import { MediaStandIn, TINY_PNG } from "../support/media-standin.ts";
import { ALICE, BOB, GROUP, mention } from "../support/messages.ts";
import type { SentMessage } from "../support/onebot-standin.ts";
import { type Scene, startScene } from "../support/scene.ts";
import { ScriptedLlmServer } from "../support/scripted-llm-server.ts";
import { waitFor } from "../support/wait.ts";

/**
 * send_voice and generate_image over the wire: the bot, the scripted planner/replyer, the
 * OneBot stand-in, and a speech and picture service built from the providers' docs
 * (test/support/media-standin.ts names each page).
 */

type Segments = Array<{ type: string; data: Record<string, string> }>;

function segmentsOf(sent: SentMessage): Segments {
  return sent.message as Segments;
}

function inlineBytes(file: string): Buffer {
  expect(file.startsWith("base64://")).toBe(true);
  return Buffer.from(file.slice("base64://".length), "base64");
}

describe("voice and pictures out (llm.models.tts, llm.models.image)", () => {
  let scene: Scene | undefined;
  let media: MediaStandIn | undefined;

  afterEach(async () => {
    await scene?.close();
    await media?.close();
    scene = undefined;
    media = undefined;
  });

  /** A scene whose `speech` provider is the stand-in (OpenAI-compatible and GPT-SoVITS at once). */
  const start = async (config: Record<string, unknown> = {}, models: Record<string, string[]> = {}) => {
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
            {
              id: "sovits",
              type: "gpt-sovits",
              baseUrl: media.baseUrl,
              textLang: "zh",
              voices: { keqing: { refAudioPath: "refs/keqing.wav", promptText: "你好呀", promptLang: "zh" } },
            },
          ],
          models: {
            planner: ["main/scripted-model"],
            replyer: ["main/scripted-model"],
            tts: ["speech/tts-1"],
            image: ["speech/gpt-image-1"],
            ...models,
          },
        },
        ...config,
      },
    });
    return { ...scene, media };
  };

  const ask = (s: Scene, text: string, userId = ALICE) =>
    s.qq.pushGroupMessage({ groupId: GROUP, userId, message: mention(text) });

  it("speaks a send_voice call with one /audio/speech request and sends that audio as a record segment", async () => {
    const s = await start();
    s.llm.enqueue(
      { toolCalls: [{ name: "send_voice", arguments: { text: "晚上好" } }] },
      { text: "大家晚上好呀" },
    );
    ask(s, "用语音跟大家打个招呼");
    const ended = await s.bot.turnFinished();
    expect(ended.data).toMatchObject({ status: "replied" });

    // The planner was offered the tool; the replyer wrote the words, asked to keep them speakable.
    const planner = s.llm.requestsWithTool("send_voice")[0]!;
    expect(planner.toolNames).toContain("send_voice");
    expect(s.llm.requestsWithoutTool("send_voice")[0]!.promptText).toContain("这段话会被朗读出来");
    expect(s.llm.requestsWithoutTool("send_voice")[0]!.promptText).toContain("晚上好");

    const speech = s.media.requestsTo("/v1/audio/speech");
    expect(speech).toHaveLength(1);
    expect(speech[0]!.body).toEqual({
      model: "tts-1",
      input: "大家晚上好呀",
      voice: "nova",
      response_format: "wav",
    });
    expect(speech[0]!.headers.authorization).toBe("Bearer speech-key");

    expect(s.qq.sent).toHaveLength(1);
    const [record] = segmentsOf(s.qq.sent[0]!);
    expect(record!.type).toBe("record");
    // The same audio, its placeholder sizes (as OpenAI streams WAV) set right.
    expect(inlineBytes(record!.data.file!).equals(s.media.wav)).toBe(true);

    const spoken = await s.bot.waitForEvent("tts.spoken");
    expect(spoken.replyId).toBe(ended.replyId);
    expect(spoken.data).toMatchObject({
      provider: "speech",
      model: "speech/tts-1",
      voice: "nova",
      seconds: 1.5,
      chars: 6,
      format: "wav",
    });
    expect(spoken.data.latencyMs).toEqual(expect.any(Number));
    // Counted in usage (and so in the daily token budgets): the characters spoken.
    await waitFor(
      async () =>
        (await storedRows(s.bot.dataDir, "SELECT task FROM llm_usage WHERE task = 'tts'")).length === 1,
      5_000,
      "the tts usage record",
    );
    const [usage] = await storedRows<{ prompt_tokens: number; success: number | boolean; user_key: string }>(
      s.bot.dataDir,
      "SELECT prompt_tokens, success, user_key FROM llm_usage WHERE task = 'tts'",
    );
    expect(usage).toMatchObject({ prompt_tokens: 6, user_key: `onebot:${ALICE}` });
  });

  it("sends the text as text when the speech model is down", async () => {
    const s = await start();
    s.media.speechDown = true;
    s.llm.enqueue({ toolCalls: [{ name: "send_voice", arguments: { text: "在呢" } }] }, { text: "我在呢" });
    ask(s, "说句话");
    expect((await s.bot.turnFinished()).data).toMatchObject({ status: "replied" });
    expect(s.media.requestsTo("/v1/audio/speech")).toHaveLength(1);
    expect(s.qq.sent.map((sent) => sent.message)).toEqual([[{ type: "text", data: { text: "我在呢" } }]]);
    const failed = await s.bot.waitForEvent("tts.failed");
    expect(failed.data).toMatchObject({ stage: "model" });
    expect(s.llm.requestsWithTool("send_voice")).toHaveLength(1);
  });

  it("refuses the next send_voice once a cap is reached (media.tts.userMaxPerDay), the planner replying in text", async () => {
    const s = await start({ media: { tts: { userMaxPerDay: 1 } } });
    s.llm.enqueue({ toolCalls: [{ name: "send_voice", arguments: { text: "一" } }] }, { text: "第一句" });
    ask(s, "发语音");
    await s.bot.turnFinished(1);
    s.llm.enqueue(
      { toolCalls: [{ name: "send_voice", arguments: { text: "二" } }] },
      { toolCalls: [{ name: "reply", arguments: {} }] },
      { text: "今天说不动了，打字吧" },
    );
    ask(s, "再发一条语音");
    expect((await s.bot.turnFinished(2)).data).toMatchObject({ status: "replied" });
    expect(s.media.requestsTo("/v1/audio/speech")).toHaveLength(1);
    const refusal = s.llm.requestsWithTool("send_voice").at(-1)!;
    expect(JSON.stringify(refusal.body.messages.at(-1))).toContain("media.tts.userMaxPerDay (1) reached");
    expect(s.qq.sent.map((sent) => segmentsOf(sent)[0]!.type)).toEqual(["record", "text"]);

    // Another member still has their voice message.
    s.llm.enqueue({ toolCalls: [{ name: "send_voice", arguments: { text: "三" } }] }, { text: "第三句" });
    ask(s, "也给我发一条", BOB);
    await s.bot.turnFinished(3);
    expect(s.media.requestsTo("/v1/audio/speech")).toHaveLength(2);
  });

  it("speaks the planner's own text in chat.mode single, with no replyer call", async () => {
    const s = await start({
      chat: {
        mode: "single",
        realtime: { windowMs: 30, maxWindowMs: 300 },
        participation: { pingPongMs: 0 },
        expressions: { enabled: false },
      },
    });
    s.llm.enqueue({ toolCalls: [{ name: "send_voice", arguments: { text: "收到啦" } }] });
    ask(s, "语音回一下");
    expect((await s.bot.turnFinished()).data).toMatchObject({ status: "replied" });
    expect(s.llm.requests).toHaveLength(1);
    expect(s.media.requestsTo("/v1/audio/speech").map((request) => request.body.input)).toEqual(["收到啦"]);
    expect(segmentsOf(s.qq.sent[0]!)[0]!.type).toBe("record");
  });

  it("speaks with a GPT-SoVITS server (api_v2 POST /tts) in the group's voice, as SILK when media.tts.silk", async () => {
    const s = await start(
      {
        media: { tts: { silk: true } },
        chat: {
          realtime: { windowMs: 30, maxWindowMs: 300 },
          participation: { pingPongMs: 0 },
          expressions: { enabled: false },
          groups: { [GROUP]: { voice: { sovits: "keqing" } } },
        },
      },
      { tts: ["sovits/v2"] },
    );
    s.llm.enqueue({ toolCalls: [{ name: "send_voice", arguments: { text: "早" } }] }, { text: "早上好" });
    ask(s, "语音说早安");
    expect((await s.bot.turnFinished()).data).toMatchObject({ status: "replied" });
    expect(s.media.requestsTo("/tts").map((request) => request.body)).toEqual([
      {
        text: "早上好",
        text_lang: "zh",
        ref_audio_path: "refs/keqing.wav",
        prompt_text: "你好呀",
        prompt_lang: "zh",
        media_type: "wav",
        streaming_mode: false,
      },
    ]);
    const [record] = segmentsOf(s.qq.sent[0]!);
    expect(record!.type).toBe("record");
    expect(inlineBytes(record!.data.file!).toString("latin1", 0, 10)).toBe("\x02#!SILK_V3");
    expect((await s.bot.waitForEvent("tts.spoken")).data).toMatchObject({ voice: "keqing", format: "silk" });
  });

  it("does not offer send_voice or generate_image without their models", async () => {
    const s = await start({}, { tts: [], image: [] });
    s.llm.enqueue({ toolCalls: [{ name: "reply", arguments: {} }] }, { text: "好" });
    ask(s, "你好");
    await s.bot.turnFinished();
    const tools = s.llm.requestsWithTool("reply")[0]!.toolNames;
    expect(tools).not.toContain("send_voice");
    expect(tools).not.toContain("generate_image");
  });

  it("offers no generate_image in a turn the bot joins unasked (the governor's rule), send_voice still", async () => {
    const s = await start({ chat: { participation: { talkValue: 1, minGapMs: 0, settleMs: 0 } } });
    s.llm.enqueue({ toolCalls: [{ name: "no_reply", arguments: { reason: "nothing to add" } }] });
    s.qq.pushGroupMessage({
      groupId: GROUP,
      userId: ALICE,
      message: [{ type: "text", data: { text: "周末干嘛" } }],
    });
    await s.bot.turnFinished();
    const tools = s.llm.requests[0]!.toolNames;
    expect(tools).toContain("send_voice");
    expect(tools).not.toContain("generate_image");
  });

  it("draws with one /images/generations request and sends the picture as an image segment with its caption", async () => {
    const s = await start({ media: { images: { size: "512x512" } } });
    s.llm.enqueue({
      toolCalls: [{ name: "generate_image", arguments: { prompt: "a cat on the moon", caption: "画好啦" } }],
    });
    ask(s, "画一只月球上的猫");
    const ended = await s.bot.turnFinished();
    expect(ended.data).toMatchObject({ status: "replied" });
    // The picture is the reply: no further planner or replyer call.
    expect(s.llm.requests).toHaveLength(1);
    expect(s.media.requestsTo("/v1/images/generations").map((request) => request.body)).toEqual([
      { model: "gpt-image-1", prompt: "a cat on the moon", n: 1, size: "512x512" },
    ]);
    const [image, caption] = segmentsOf(s.qq.sent[0]!);
    expect(image!.type).toBe("image");
    expect(inlineBytes(image!.data.file!).equals(TINY_PNG)).toBe(true);
    expect(caption).toEqual({ type: "text", data: { text: "画好啦" } });
    const made = await s.bot.waitForEvent("image.generated");
    expect(made.data).toMatchObject({
      provider: "speech",
      model: "speech/gpt-image-1",
      fetched: false,
      mime: "image/png",
    });
    // The provider's reported usage is what the budgets count.
    await waitFor(
      async () =>
        (await storedRows(s.bot.dataDir, "SELECT task FROM llm_usage WHERE task = 'image'")).length === 1,
      5_000,
      "the image usage record",
    );
    const [usage] = await storedRows(
      s.bot.dataDir,
      "SELECT prompt_tokens, completion_tokens FROM llm_usage WHERE task = 'image'",
    );
    expect(usage).toMatchObject({ prompt_tokens: 20, completion_tokens: 272 });
  });

  it("fetches a url answer (SiliconFlow's images[].url) through the vetted fetch, which refuses loopback unless allowed", async () => {
    const s = await start({ media: { allowPrivateNetworks: true } });
    s.media.pictureMode = "siliconflow-url";
    s.llm.enqueue({ toolCalls: [{ name: "generate_image", arguments: { prompt: "sunset" } }] });
    ask(s, "画个日落");
    await s.bot.turnFinished(1);
    const [image] = segmentsOf(s.qq.sent[0]!);
    expect(inlineBytes(image!.data.file!).equals(TINY_PNG)).toBe(true);
    expect((await s.bot.waitForEvent("image.generated")).data).toMatchObject({ fetched: true });
  });

  it("does not fetch a picture url on a loopback address by default", async () => {
    const s = await start();
    s.media.pictureMode = "openai-url";
    s.llm.enqueue(
      { toolCalls: [{ name: "generate_image", arguments: { prompt: "sunset" } }] },
      { toolCalls: [{ name: "no_reply", arguments: { reason: "the picture could not be fetched" } }] },
    );
    ask(s, "画个日落");
    await s.bot.turnFinished();
    expect(s.qq.sent).toEqual([]);
    expect(s.media.requestsTo("/v1/images/generations")).toHaveLength(1);
    expect((await s.bot.waitForEvent("image.failed")).data).toMatchObject({ stage: "fetch" });
    expect(String((await s.bot.waitForEvent("image.failed")).data.reason)).toMatch(/refused/);
  });

  it("tells the planner plainly when the provider refuses the prompt, and asks no other model", async () => {
    const s = await start({}, { image: ["speech/dall-e-3", "speech/gpt-image-1"] });
    s.media.pictureMode = "refuse";
    s.llm.enqueue(
      { toolCalls: [{ name: "generate_image", arguments: { prompt: "something not allowed" } }] },
      { toolCalls: [{ name: "reply", arguments: {} }] },
      { text: "这个画不了，图片服务拒绝了这个内容" },
    );
    ask(s, "画点不该画的");
    expect((await s.bot.turnFinished()).data).toMatchObject({ status: "replied" });
    expect(s.media.requestsTo("/v1/images/generations")).toHaveLength(1);
    const result = JSON.stringify(s.llm.requestsWithTool("generate_image").at(-1)!.body.messages.at(-1));
    expect(result).toContain("Your request was rejected as a result of our safety system.");
    expect(s.qq.sent.map((sent) => sent.text)).toEqual(["这个画不了，图片服务拒绝了这个内容"]);
    expect((await s.bot.waitForEvent("image.failed")).data).toMatchObject({ stage: "refused" });
  });

  it("refuses the next generate_image once a member's daily cap (media.images.userMaxPerDay) is reached", async () => {
    const s = await start({ media: { images: { userMaxPerDay: 1 } } });
    s.llm.enqueue({ toolCalls: [{ name: "generate_image", arguments: { prompt: "a dog" } }] });
    ask(s, "画只狗");
    await s.bot.turnFinished(1);
    s.llm.enqueue(
      { toolCalls: [{ name: "generate_image", arguments: { prompt: "another dog" } }] },
      { toolCalls: [{ name: "reply", arguments: {} }] },
      { text: "今天画够了" },
    );
    ask(s, "再画一只");
    await s.bot.turnFinished(2);
    expect(s.media.requestsTo("/v1/images/generations")).toHaveLength(1);
    const refusal = JSON.stringify(s.llm.requestsWithTool("generate_image").at(-1)!.body.messages.at(-1));
    expect(refusal).toContain("media.images.userMaxPerDay (1) reached");
    expect(s.qq.sent.map((sent) => segmentsOf(sent)[0]!.type)).toEqual(["image", "text"]);
  });
});
