import { rmSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { SDK_VERSION } from "../../src/sdk/version.ts";
import { PluginSandbox } from "../plugins/plugin-fixtures.ts";
import { pluginStatuses, postApi, timelineOf } from "../support/bot-api.ts";
import type { BotHarness } from "../support/bot-harness.ts";
import { ALICE, GROUP, mention, OTHER_GROUP, SELF } from "../support/messages.ts";
import type { OneBotStandIn } from "../support/onebot-standin.ts";
import { type Scene, startScene } from "../support/scene.ts";
import type { ScriptedLlmServer } from "../support/scripted-llm-server.ts";
import { waitFor } from "../support/wait.ts";
import {
  clearSeenCalls,
  extensionPlugin,
  pluginOptionsOf,
  seenCalls,
  sendActions,
} from "./extension-fixtures.ts";

/** One base64 PNG pixel, as an extension would attach a picture. */
const PIXEL =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

const styleExtension = (name: string, options: string, body?: string) => ({ name, options, body });

describe("reply extensions in the reply flow (plugin_options, prepare, before_send)", () => {
  let sandbox: PluginSandbox;
  let llm: ScriptedLlmServer;
  let bot: BotHarness;
  let scene: Scene | undefined;
  let qq: OneBotStandIn;
  let turns = 0;

  const start = async () => {
    scene = await startScene({ config: { plugins: { dirs: [sandbox.root] } } });
    ({ llm, bot, qq } = scene);
    turns = 0;
  };
  const ask = (text: string, groupId = GROUP) =>
    qq.pushGroupMessage({ groupId, userId: ALICE, nickname: "Alice", message: mention(text) });
  /** Runs one silent turn and returns the plugin_options its planner request declared. */
  const optionsSeenIn = async (push: () => void) => {
    llm.enqueue({ toolCalls: [{ name: "no_reply", arguments: { reason: "看看参数" } }] });
    push();
    await bot.turnFinished(++turns);
    return pluginOptionsOf(llm.requests.at(-1)!);
  };
  const keysSeenIn = async (push: () => void) => Object.keys((await optionsSeenIn(push))?.properties ?? {});
  /** Runs a turn whose planner replies with `args` and whose replyer writes `text`. */
  const replyWith = async (args: Record<string, unknown>, text: string, question = "说点什么") => {
    llm.enqueue({ toolCalls: [{ name: "reply", arguments: args }] }, { text });
    const messageId = ask(question);
    const ended = await bot.turnFinished(++turns);
    return { messageId, ended };
  };

  afterEach(async () => {
    await scene?.close();
    scene = undefined;
    sandbox.remove();
    clearSeenCalls();
  });

  it("offers plugin_options keyed pluginId.component only where an extension is enabled, and drops it at once", async () => {
    sandbox = new PluginSandbox();
    sandbox.add("alpha", {
      "index.ts": extensionPlugin(
        styleExtension(
          "style",
          `{ description: "换一种说话风格", chat_scope: "group",
             parameters: [{ name: "mode", type: "string", enum: ["cat", "robot"], required: true }] }`,
        ),
      ),
    });
    sandbox.add("beta", {
      "index.ts": extensionPlugin(
        styleExtension(
          "tone",
          `{ allowed_session: ["group:${GROUP}"], parameters: { loud: { type: "boolean" } } }`,
        ),
        styleExtension("off", `{ enabled: false, parameters: {} }`),
      ),
    });
    await start();
    const inGroup = await optionsSeenIn(() => ask("在吗"));
    expect(inGroup).toEqual({
      type: "object",
      description: expect.stringContaining("插件ID.组件名"),
      properties: {
        "alpha.style": {
          type: "object",
          description: "换一种说话风格",
          properties: { mode: { type: "string", enum: ["cat", "robot"] } },
          required: ["mode"],
          additionalProperties: false,
        },
        "beta.tone": {
          type: "object",
          properties: { loud: { type: "boolean" } },
          additionalProperties: false,
        },
      },
      additionalProperties: false,
    });
    expect(await keysSeenIn(() => ask("在吗", OTHER_GROUP))).toEqual(["alpha.style"]);
    // No extension applies in a private chat: the reply tool has no plugin_options at all.
    expect(
      await optionsSeenIn(() => qq.pushPrivateMessage({ userId: ALICE, message: "在吗" })),
    ).toBeUndefined();

    await postApi(bot, "/api/plugins/alpha/disable");
    expect(await keysSeenIn(() => ask("在吗"))).toEqual(["beta.tone"]);
    await postApi(bot, "/api/plugins/beta.off/enable");
    expect(await keysSeenIn(() => ask("在吗"))).toEqual(["beta.off", "beta.tone"]);
    await postApi(bot, "/api/plugins/beta.off/disable");
    await postApi(bot, "/api/plugins/beta.tone/disable");
    expect(await optionsSeenIn(() => ask("在吗"))).toBeUndefined();
    await postApi(bot, "/api/plugins/alpha/enable");
    expect(await keysSeenIn(() => ask("在吗"))).toEqual(["alpha.style"]);
    // Unloading (the folder removed) drops the key from the very next request as well.
    rmSync(`${sandbox.root}/alpha`, { recursive: true, force: true });
    await waitFor(async () => !(await pluginStatuses(bot)).some((status) => status.id === "alpha"));
    expect(await optionsSeenIn(() => ask("在吗"))).toBeUndefined();
  });

  it("runs a selected extension in both phases: extra_prompt reaches the replyer and the generation hook", async () => {
    sandbox = new PluginSandbox();
    sandbox.add("alpha", {
      "index.ts": extensionPlugin(
        styleExtension(
          "style",
          `{ parameters: { mode: { type: "string", enum: ["cat", "robot"] }, loud: { type: "boolean", default: false } } }`,
          `return payload.phase === "prepare" ? { extra_prompt: "每句话结尾加上「喵」。" } : {};`,
        ),
      ),
    });
    // Same parameter names in another plugin: never mixed up, and not called when not selected.
    sandbox.add("beta", {
      "index.ts": extensionPlugin(
        styleExtension("tone", `{ parameters: { mode: { type: "integer", default: 3 } } }`),
      ),
    });
    sandbox.add("watcher", {
      "index.ts": `import { Hook, Plugin } from "tsumugi/sdk";
export default class Watcher extends Plugin {
  @Hook("generation", { event: "PreReplyGenerate" })
  saw(input: any) {
    (globalThis as any).generationHook = input;
  }
}
`,
    });
    await start();
    const { messageId } = await replyWith(
      { set_quote: false, plugin_options: { "alpha.style": { mode: "cat" } } },
      "好的喵",
    );
    const sent = await qq.waitForSent(undefined, 5_000);
    expect(sent.text).toBe("好的喵");

    const replyer = llm.lastRequestWithoutTool("reply")!;
    expect(replyer.promptText).toContain("每句话结尾加上「喵」。");
    const hook = (globalThis as { generationHook?: Record<string, unknown> }).generationHook;
    expect(hook).toMatchObject({ event: "PreReplyGenerate", extra_prompt: "每句话结尾加上「喵」。" });
    expect(hook?.reply_message_id).toBe(messageId);

    const calls = seenCalls();
    expect(calls.map((call) => `${call.extension}:${call.phase}`)).toEqual([
      "alpha.style:prepare",
      "alpha.style:before_send",
    ]);
    const [prepare, beforeSend] = calls as [(typeof calls)[0], (typeof calls)[0]];
    const sessionId = `onebot:${SELF}:group:${GROUP}`;
    expect(prepare).toMatchObject({
      call_id: "call_0_0",
      session_id: sessionId,
      reply_message_id: messageId,
      chat: {
        platform: "onebot",
        is_group_chat: true,
        group_id: GROUP,
        user_id: ALICE,
        session_id: sessionId,
        stream_id: sessionId,
      },
      // The default is filled because the extension was selected; the model's value is kept.
      parameters: { mode: "cat", loud: false },
      text: "",
      messages: [],
    });
    expect(beforeSend.reply_id).toBe(prepare.reply_id);
    expect(beforeSend).toMatchObject({
      text: "好的喵",
      messages: [{ segments: [{ type: "text", data: "好的喵" }], quote_previous: false }],
      parameters: { mode: "cat", loud: false },
    });

    // Both phases are on the monitor timeline under this reply.
    const events = (await timelineOf(bot, prepare.reply_id)).filter(
      (event) => event.type === "reply.extension",
    );
    expect(events.map((event) => [event.data.extension, event.data.phase, event.data.status])).toEqual([
      ["alpha.style", "prepare", "ok"],
      ["alpha.style", "before_send", "ok"],
    ]);
    expect(events[0]!.data.extraPrompt).toBe("每句话结尾加上「喵」。");
  });

  it("sends a before_send rewrite in order: the first message follows set_quote, later ones quote_previous", async () => {
    sandbox = new PluginSandbox();
    sandbox.add("layout", {
      "index.ts": extensionPlugin(
        styleExtension(
          "split",
          "{ parameters: {} }",
          `if (payload.phase === "prepare") return {};
    const [first] = payload.messages;
    return {
      messages: [
        { segments: first.segments, quote_previous: false },
        {
          segments: [
            { type: "at", data: "${ALICE}" },
            { type: "text", data: " 给你看张图" },
            { type: "image", data: "一个像素", binary_data_base64: "${PIXEL}" },
          ],
          quote_previous: true,
        },
        { segments: [{ type: "emoji", data: "", binary_data_base64: "${PIXEL}" }], quote_previous: false },
        { segments: [{ type: "dict", data: { type: "face", data: { id: "14" } } }] },
      ],
    };`,
        ),
      ),
    });
    await start();
    const { messageId } = await replyWith(
      { set_quote: true, plugin_options: { "layout.split": {} } },
      "看这里",
    );
    const sent = qq.sent;
    expect(sent).toHaveLength(4);
    expect(sent.map((message) => message.message)).toEqual([
      [
        { type: "reply", data: { id: messageId } },
        { type: "text", data: { text: "看这里" } },
      ],
      [
        { type: "reply", data: { id: String(sent[0]!.messageId) } },
        { type: "at", data: { qq: ALICE } },
        { type: "text", data: { text: " 给你看张图" } },
        { type: "image", data: { file: `base64://${PIXEL}` } },
      ],
      [{ type: "image", data: { file: `base64://${PIXEL}`, sub_type: "1" } }],
      [{ type: "face", data: { id: "14" } }],
    ]);
  });

  it("sends the first message unquoted when set_quote is false, whatever quote_previous says", async () => {
    sandbox = new PluginSandbox();
    sandbox.add("layout", {
      "index.ts": extensionPlugin(
        styleExtension(
          "twice",
          "{ parameters: {} }",
          `if (payload.phase === "prepare") return {};
    return { messages: [
      { segments: [{ type: "text", data: "一" }], quote_previous: true },
      { segments: [{ type: "text", data: "二" }], quote_previous: true },
    ] };`,
        ),
      ),
    });
    await start();
    await replyWith({ plugin_options: { "layout.twice": {} } }, "原文");
    expect(qq.sent.map((message) => message.message)).toEqual([
      [{ type: "text", data: { text: "一" } }],
      [
        { type: "reply", data: { id: String(qq.sent[0]!.messageId) } },
        { type: "text", data: { text: "二" } },
      ],
    ]);
  });

  it("chains extensions by priority, then full name, each getting the previous one's group", async () => {
    sandbox = new PluginSandbox();
    // Each appends its name to the last message; the first also attaches a picture, which a
    // later one hands back with only its hash.
    const appendName = (
      extra = "",
    ) => `if (payload.phase === "prepare") return { extra_prompt: "要求：" + payload.parameters.tag };
    const messages = payload.messages;
    const last = messages[messages.length - 1];
    last.segments.push({ type: "text", data: "|" + payload.parameters.tag });
    ${extra}
    return { messages };`;
    sandbox.add("zeta", {
      "index.ts": extensionPlugin(
        styleExtension(
          "first",
          `{ priority: -1, parameters: { tag: { type: "string", default: "zeta.first" } } }`,
          appendName(
            `messages.push({ segments: [{ type: "image", data: "", binary_data_base64: "${PIXEL}" }], quote_previous: false });`,
          ),
        ),
      ),
    });
    sandbox.add("beta", {
      "index.ts": extensionPlugin(
        styleExtension(
          "b",
          `{ parameters: { tag: { type: "string", default: "beta.b" } } }`,
          `if (payload.phase === "prepare") return { extra_prompt: "要求：" + payload.parameters.tag };
    const messages = payload.messages.map((message: any) => ({
      ...message,
      segments: message.segments.map((segment: any) => {
        if (segment.type !== "image") return segment;
        const { binary_data_base64, ...kept } = segment;
        return kept;
      }),
    }));
    messages[0].segments.push({ type: "text", data: "|" + payload.parameters.tag });
    return { messages };`,
        ),
      ),
    });
    sandbox.add("alpha", {
      "index.ts": extensionPlugin(
        styleExtension("a", `{ parameters: { tag: { type: "string", default: "alpha.a" } } }`, appendName()),
      ),
    });
    await start();
    await replyWith({ plugin_options: { "beta.b": {}, "alpha.a": {}, "zeta.first": {} } }, "原文");
    const order = seenCalls().map((call) => `${call.phase}:${call.extension}`);
    expect(order).toEqual([
      "prepare:zeta.first",
      "prepare:alpha.a",
      "prepare:beta.b",
      "before_send:zeta.first",
      "before_send:alpha.a",
      "before_send:beta.b",
    ]);
    const replyer = llm.lastRequestWithoutTool("reply")!.promptText;
    expect(replyer).toContain("要求：zeta.first\n要求：alpha.a\n要求：beta.b");
    // alpha.a saw zeta.first's group, with the picture's hash filled in by the host.
    const alphaInput = seenCalls().find(
      (call) => call.phase === "before_send" && call.extension === "alpha.a",
    )!;
    expect(alphaInput.messages).toEqual([
      {
        segments: [
          { type: "text", data: "原文" },
          { type: "text", data: "|zeta.first" },
        ],
        quote_previous: false,
      },
      {
        segments: [
          {
            type: "image",
            data: "",
            binary_data_base64: PIXEL,
            hash: expect.stringMatching(/^[0-9a-f]{64}$/),
          },
        ],
        quote_previous: false,
      },
    ]);
    expect(qq.sent.map((message) => message.message)).toEqual([
      [
        { type: "text", data: { text: "原文" } },
        { type: "text", data: { text: "|zeta.first" } },
        { type: "text", data: { text: "|beta.b" } },
      ],
      // alpha.a appended to the last message, which was zeta.first's picture.
      [
        { type: "image", data: { file: `base64://${PIXEL}` } },
        { type: "text", data: { text: "|alpha.a" } },
      ],
    ]);
  });

  it("tells the model about invalid plugin_options and sends nothing half-done", async () => {
    sandbox = new PluginSandbox();
    sandbox.add("alpha", {
      "index.ts": extensionPlugin(
        styleExtension(
          "style",
          `{ parameters: [{ name: "mode", type: "string", enum: ["cat", "robot"], required: true }] }`,
        ),
      ),
    });
    await start();
    llm.enqueue(
      {
        toolCalls: [
          { name: "reply", arguments: { plugin_options: { "alpha.style": { mode: "dog", volume: 3 } } } },
        ],
      },
      { toolCalls: [{ name: "reply", arguments: { plugin_options: { "nobody.voice": {} } } }] },
    );
    ask("学猫叫");
    const ended = await bot.turnFinished(1);
    expect(ended.data.status).toBe("failed");
    const told = llm.requests[1]!.body.messages.find((message) => message.role === "tool");
    expect(String(told?.content)).toContain("调用 reply 出错");
    expect(String(told?.content)).toContain('plugin_options["alpha.style"]');
    expect(String(told?.content)).toContain('mode must be one of ["cat","robot"]');
    expect(String(told?.content)).toContain('unknown parameter "volume"');
    expect(String(ended.data.reason)).toContain(
      'plugin_options has unknown "nobody.voice"; available here: alpha.style',
    );
    // Neither the replyer nor the extension ran, and nothing was sent.
    expect(llm.requests).toHaveLength(2);
    expect(seenCalls()).toEqual([]);
    expect(sendActions(qq)).toEqual([]);
  });

  it("refuses $ref parameters and an sdk range that excludes the host at registration", async () => {
    sandbox = new PluginSandbox();
    sandbox.add("refs", {
      "index.ts": extensionPlugin(
        styleExtension(
          "linked",
          `{ parameters: { type: "object", properties: { mode: { $ref: "#/$defs/mode" } }, $defs: { mode: { type: "string" } } } }`,
        ),
      ),
    });
    sandbox.add(
      "future",
      { "index.ts": extensionPlugin(styleExtension("later", "{ parameters: {} }")) },
      { sdk: ">=2.10.0" },
    );
    await start();
    // The bot starts once every plugin's first load is over.
    const failed = (await pluginStatuses(bot)).filter((status) => status.state === "failed");
    expect(Object.fromEntries(failed.map((status) => [status.id, status.error]))).toEqual({
      refs: expect.stringContaining(
        "reply extension refs.linked: parameters use $ref at /properties/mode: $ref and $dynamicRef are not supported",
      ),
      future: `sdk ">=2.10.0" does not accept this host's SDK version ${SDK_VERSION}`,
    });
    expect(await optionsSeenIn(() => ask("在吗"))).toBeUndefined();
  });
});
