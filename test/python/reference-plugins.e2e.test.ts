import { createHash } from "node:crypto";
import { appendFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { pluginStatus } from "../support/bot-api.ts";
import { ALICE, GROUP, mention } from "../support/messages.ts";
import { type Scene, startScene } from "../support/scene.ts";
import {
  copyReference,
  PluginSandbox,
  pythonPlugin,
  REFERENCE_PLUGINS,
  REFERENCE_SHA256,
} from "./python-fixtures.ts";

/**
 * The author's own TTS of the voice reply example, added after the printed code (it leaves
 * it to the author): a WAV whose frames hold the text, so the test can tell what was spoken.
 */
const SYNTHESIZE_VOICE = `

import io
import wave


async def synthesize_voice(self, text):
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as audio:
        audio.setnchannels(1)
        audio.setsampwidth(1)
        audio.setframerate(8000)
        audio.writeframes(text.encode("utf-8"))
    return buffer.getvalue()


VoicePlugin.synthesize_voice = synthesize_voice
`;

/** The author's own database helper that the gold vault's service.py imports. */
const USER_HELPER = `
from types import SimpleNamespace


async def get_user(user_id):
    return SimpleNamespace(user_id=user_id, coin=1250)
`;

describe("the reference Python plugins, as printed, on the Python SDK", () => {
  let sandbox: PluginSandbox;
  let scene: Scene | undefined;

  afterEach(async () => {
    await scene?.close();
    scene = undefined;
    sandbox?.remove();
  });

  it("holds the reference text byte for byte", () => {
    for (const [file, sha256] of Object.entries(REFERENCE_SHA256)) {
      const bytes = readFileSync(join(REFERENCE_PLUGINS, file));
      expect(createHash("sha256").update(bytes).digest("hex"), file).toBe(sha256);
    }
  });

  it("runs the reference voice reply extension (maibot_sdk, @ReplyExtension): the reply goes out as voice", async () => {
    sandbox = new PluginSandbox();
    const folder = pythonPlugin(sandbox, "voice_plugin", {});
    copyReference(folder, "voice_plugin.py", "plugin.py");
    appendFileSync(join(folder.dir, "plugin.py"), SYNTHESIZE_VOICE);
    scene = await startScene({ config: { plugins: { dirs: [sandbox.root] } } });
    const { llm, qq, bot } = scene;
    expect((await pluginStatus(bot, "voice_plugin")).components.map((c) => `${c.kind}:${c.name}`)).toEqual([
      "reply_extension:voice",
    ]);
    const voiceOptions = { "voice_plugin.voice": { attach_voice: true, keep_text: false } };
    llm.enqueue(
      { toolCalls: [{ name: "reply", arguments: { plugin_options: voiceOptions } }] },
      { text: "晚安" },
    );
    qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: mention("用语音说晚安") });
    const sent = await qq.waitForSent(undefined, 8_000);
    // keep_text false: the text segments are dropped, only the voice of "晚安" goes out.
    const segments = sent.message as { type: string; data: { file: string } }[];
    expect(segments.map((segment) => segment.type)).toEqual(["record"]);
    const wav = Buffer.from(segments[0]!.data.file.replace("base64://", ""), "base64");
    expect(wav.subarray(0, 4).toString()).toBe("RIFF");
    expect(wav.subarray(wav.length - 6).toString()).toBe("晚安");
    // prepare's extra prompt reached the replyer.
    expect(llm.requests[1]!.promptText).toContain("这次回复会转成语音，请使用适合朗读的自然口语。");
  });

  it("runs the function-declaration gold_vault package: (bot, event, config, target_name) and its dict back to the model", async () => {
    sandbox = new PluginSandbox();
    const folder = pythonPlugin(sandbox, "gold_vault", {}, { entry: "." });
    copyReference(folder, "gold_vault/__init__.py", "__init__.py");
    copyReference(folder, "gold_vault/service.py", "service.py");
    folder.write("framework_common/__init__.py", "");
    folder.write("framework_common/database_util/__init__.py", "");
    folder.write("framework_common/database_util/User.py", USER_HELPER);
    scene = await startScene({ config: { plugins: { dirs: [sandbox.root] } } });
    const { llm, qq } = scene;
    llm.enqueue(
      { toolCalls: [{ name: "query_user_coins", arguments: { target_name: "self" } }] },
      { toolCalls: [{ name: "reply", arguments: {} }] },
      { text: "你有 1250 枚金币，富得流油~" },
    );
    qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: mention("我的小金库有多少钱") });
    expect((await qq.waitForSent(undefined, 8_000)).text).toBe("你有 1250 枚金币，富得流油~");
    expect(llm.requests[0]!.toolNames).toContain("query_user_coins");
    const result = llm.requests[1]!.body.messages.find((message) => message.role === "tool")!;
    expect(JSON.parse(String(result.content))).toEqual({
      user_id: ALICE,
      target: "self",
      coins: 1250,
      wallet_status: "富得流油",
    });
  });

  it("refuses to activate a package whose dynamic_imports path is not in the plugin folder, naming the path", async () => {
    sandbox = new PluginSandbox();
    const folder = pythonPlugin(sandbox, "gold_vault", {}, { entry: ".", autoRetry: false });
    folder.write(
      "__init__.py",
      readFileSync(join(REFERENCE_PLUGINS, "gold_vault/__init__.py"), "utf8").replace(
        "run.gold_vault.service",
        "run.gold_vault.servise",
      ),
    );
    copyReference(folder, "gold_vault/service.py", "service.py");
    scene = await startScene({ config: { plugins: { dirs: [sandbox.root] } } });
    const status = await pluginStatus(scene.bot, "gold_vault");
    expect(status.process?.state).toBe("failed");
    expect(status.process?.lastError).toContain('dynamic_imports: "run.gold_vault.servise" is not a module');
    expect(status.components).toEqual([]);
  });
  it("refuses declarations the author wrapped in {type: function, function: …}, as the style's guide warns and the Node host does", async () => {
    sandbox = new PluginSandbox();
    const folder = pythonPlugin(sandbox, "gold_vault", {}, { entry: ".", autoRetry: false });
    folder.write(
      "__init__.py",
      `${readFileSync(join(REFERENCE_PLUGINS, "gold_vault/__init__.py"), "utf8")}
function_declarations = [{"type": "function", "function": d} for d in function_declarations]
`,
    );
    copyReference(folder, "gold_vault/service.py", "service.py");
    folder.write("framework_common/__init__.py", "");
    folder.write("framework_common/database_util/__init__.py", "");
    folder.write("framework_common/database_util/User.py", USER_HELPER);
    scene = await startScene({ config: { plugins: { dirs: [sandbox.root] } } });
    const status = await pluginStatus(scene.bot, "gold_vault");
    expect(status.process?.state).toBe("failed");
    expect(status.process?.lastError).toContain(
      'function_declarations[0] is wrapped in {"type":"function","function":…}',
    );
    expect(status.components).toEqual([]);
  });
});
