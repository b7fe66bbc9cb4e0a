/**
 * Voice messages are transcribed by the speech task (`llm.models.speech`, an OpenAI-compatible
 * `/audio/transcriptions`): QQ's SILK is decoded to WAV in the bot, the transcript reads
 * `[语音：…]` in the planner's prompt, and it is cached by file id.
 */
import { afterEach, describe, expect, it } from "vitest";
import { toneWav } from "../console/weather-plugin.ts";
import { ALICE, GROUP, mention } from "../support/messages.ts";
import type { WireSegment } from "../support/onebot-standin.ts";
import { type PictureServer, startPictureServer } from "../support/picture-server.ts";
import { type Scene, startScene } from "../support/scene.ts";
import { type RecordedTranscription, ScriptedLlmServer } from "../support/scripted-llm-server.ts";
import { silkTone } from "../support/voices.ts";

const HEARD = "今晚八点开会";
const WITH_SPEECH = {
  llm: { models: { speech: ["main/scripted-whisper"] } },
  media: { allowPrivateNetworks: true },
};
const REPLY = [{ toolCalls: [{ name: "reply", arguments: {} }] }, { text: "收到" }];

let scene: Scene | undefined;
let server: PictureServer | undefined;
afterEach(async () => {
  await scene?.close();
  await server?.close();
  scene = undefined;
  server = undefined;
});

async function start(
  config: Record<string, unknown> = WITH_SPEECH,
  transcribe: (upload: RecordedTranscription) => string = () => HEARD,
): Promise<Scene> {
  server = await startPictureServer();
  const llm = await ScriptedLlmServer.start({ transcribe });
  scene = await startScene({ llm, config });
  return scene;
}

function record(file: string, url?: string): WireSegment {
  return { type: "record", data: { file, ...(url === undefined ? {} : { url }) } };
}

/** Alice @-mentions the bot, then sends this voice message; resolves once the bot replied. */
async function askAbout(s: Scene, voice: WireSegment): Promise<void> {
  s.llm.enqueue(...REPLY);
  s.qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, nickname: "Alice", message: mention("听听这个") });
  s.qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, nickname: "Alice", message: [voice] });
  await s.bot.turnFinished(1, 10_000);
}

describe("voice messages are transcribed into the prompt", () => {
  it("decodes a SILK voice message to WAV, transcribes it and shows [语音：…] to the planner", async () => {
    const s = await start();
    const url = server!.serve("/voice.amr", { body: await silkTone(1) });
    await askAbout(s, record("voice-1.amr", url));

    expect(s.llm.lastRequestWithTool("reply")?.promptText).toContain(`Alice(${ALICE}): [语音：${HEARD}]`);
    const [upload] = s.llm.transcriptions;
    expect(upload?.model).toBe("scripted-whisper");
    expect(upload?.fileName).toBe("voice.wav");
    expect(upload?.bytes.toString("latin1", 0, 4)).toBe("RIFF");
    // One second of 16-bit mono audio at 24 kHz, give or take SILK's last frame.
    expect(upload!.bytes.length).toBeGreaterThan(47_000);
    const transcribed = await s.bot.waitForEvent("speech.transcribed");
    expect(transcribed.data).toMatchObject({ cached: false, model: "main/scripted-whisper" });

    // The next turn finds the transcript by file id: no fetch, no model call.
    s.llm.enqueue(...REPLY);
    s.qq.pushGroupMessage({
      groupId: GROUP,
      userId: ALICE,
      nickname: "Alice",
      message: mention("刚才说什么"),
    });
    await s.bot.turnFinished(2, 10_000);
    expect(s.llm.lastRequestWithTool("reply")?.promptText).toContain(`[语音：${HEARD}]`);
    expect(s.llm.transcriptions).toHaveLength(1);
    expect(server!.requests.filter((path) => path === "/voice.amr")).toHaveLength(1);
  });

  it("asks get_record for WAV when the voice message has only a file id", async () => {
    const s = await start();
    const wav = toneWav(0.5);
    s.qq.setRecord("voice-2.amr", { file: "/tmp/voice-2.amr.wav", base64: wav.toString("base64") });
    await askAbout(s, record("voice-2.amr"));

    const asked = await s.qq.waitForAction("get_record");
    expect(asked.params).toMatchObject({ file: "voice-2.amr", out_format: "wav" });
    expect(s.llm.lastRequestWithTool("reply")?.promptText).toContain(`[语音：${HEARD}]`);
    expect(s.llm.transcriptions[0]?.bytes).toEqual(wav);
  });

  it("leaves [语音] and a timeline event when the speech model fails", async () => {
    const s = await start(WITH_SPEECH, () => {
      throw new Error("the model is down");
    });
    const url = server!.serve("/voice.amr", { body: await silkTone(1) });
    await askAbout(s, record("voice-3.amr", url));

    expect(s.llm.lastRequestWithTool("reply")?.promptText).toContain(`Alice(${ALICE}): [语音]`);
    const failed = await s.bot.waitForEvent("speech.failed");
    expect(failed.data).toMatchObject({ stage: "model" });
  });

  it("fetches nothing without a speech model", async () => {
    const s = await start({ media: { allowPrivateNetworks: true } });
    const url = server!.serve("/voice.amr", { body: await silkTone(1) });
    await askAbout(s, record("voice-4.amr", url));

    expect(s.llm.lastRequestWithTool("reply")?.promptText).toContain(`Alice(${ALICE}): [语音]`);
    expect(server!.requests).toEqual([]);
  });
});
