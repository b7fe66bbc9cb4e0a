import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { MonitorEvent } from "../../src/monitor/monitor.ts";
import { PluginSandbox } from "../plugins/plugin-fixtures.ts";
import { postApi, timelineOf } from "../support/bot-api.ts";
import type { BotHarness } from "../support/bot-harness.ts";
import { ALICE, GROUP, mention, OTHER_GROUP, SELF } from "../support/messages.ts";
import type { OneBotStandIn } from "../support/onebot-standin.ts";
import { type Scene, startScene } from "../support/scene.ts";
import type { RecordedLlmRequest, ScriptedLlmServer } from "../support/scripted-llm-server.ts";
import { extensionPlugin, forgetSeen, seenCalls, sendActions } from "./extension-fixtures.ts";

const failing = (name: string, beforeSend: string, options = "{ parameters: {} }") => ({
  name,
  options,
  body: `if (payload.phase === "prepare") return {};\n    ${beforeSend}`,
});

/**
 * Every way an extension can fail a reply. One bot serves the whole file; each case selects
 * one extension and expects the reply to fail with nothing sent.
 */
describe("a failing reply extension fails the whole reply and sends nothing", () => {
  const sandbox = new PluginSandbox();
  let llm: ScriptedLlmServer;
  let bot: BotHarness;
  let scene: Scene | undefined;
  let qq: OneBotStandIn;
  let turns = 0;

  beforeAll(async () => {
    sandbox.add("faulty", {
      "index.ts": extensionPlugin(
        failing("empty", "return { messages: [] };"),
        failing("no_segments", "return { messages: [{ segments: [], quote_previous: false }] };"),
        failing("not_object", `return "发语音";`),
        failing("wrong_field", `return { message: payload.messages };`),
        failing("bad_type", `return { messages: [{ segments: [{ type: "video", data: "x" }] }] };`),
        failing(
          "bad_voice",
          `return { messages: [{ segments: [{ type: "voice", data: "你好", binary_data_base64: "bm90IGF1ZGlv" }] }] };`,
        ),
        failing(
          "unknown_hash",
          `return { messages: [{ segments: [{ type: "image", data: "", hash: "deadbeef" }] }] };`,
        ),
        failing("throws", `throw new Error("TTS 服务挂了");`),
        failing(
          "slow",
          "await new Promise((resolve) => setTimeout(resolve, 2_000)); return {};",
          "{ parameters: {}, timeout_ms: 150 }",
        ),
        {
          name: "prepare_throws",
          options: "{ parameters: {} }",
          body: `throw new Error("prepare 坏了");`,
        },
        { name: "prepare_nothing", options: "{ parameters: {} }", body: "return undefined;" },
        { name: "prepare_number", options: "{ parameters: {} }", body: "return { extra_prompt: 42 };" },
        {
          name: "prepare_messages",
          options: "{ parameters: {} }",
          body: `return { messages: [{ segments: [{ type: "text", data: "抢先" }] }] };`,
        },
      ),
    });
    sandbox.add("fickle", { "index.ts": extensionPlugin({ name: "ext", options: "{ parameters: {} }" }) });
    scene = await startScene({ config: { plugins: { dirs: [sandbox.root] } } });
    ({ llm, bot, qq } = scene);
  });

  afterAll(async () => {
    await scene?.close();
    scene = undefined;
    sandbox.remove();
  });

  beforeEach(() => forgetSeen(qq));

  /** A reply selecting `extension`; resolves once the turn has ended, with its `turn.finished` event. */
  const replyWith = async (extension: string, replyer: Parameters<ScriptedLlmServer["enqueue"]>[0]) => {
    llm.enqueue(
      { toolCalls: [{ name: "reply", arguments: { plugin_options: { [extension]: {} } } }] },
      replyer,
    );
    qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: mention("来段语音") });
    return bot.turnFinished(++turns);
  };

  /** The reply failed, nothing was sent, and the log line and the monitor name reply, extension and reason. */
  const expectFailed = async (ended: MonitorEvent, extension: string, phase: string, reason: string) => {
    expect(ended.data.status).toBe("failed");
    expect(String(ended.data.reason)).toContain(`reply extension ${extension} failed in ${phase}: `);
    expect(String(ended.data.reason)).toContain(reason);
    expect(sendActions(qq)).toEqual([]);
    const replyId = String(ended.replyId);
    const line = bot.logs.find(
      (entry) =>
        entry.replyId === replyId && String(entry.msg).startsWith(`reply extension ${extension} failed`),
    );
    expect(line).toMatchObject({ extension, phase, reason: expect.stringContaining(reason) });
    const events = (await timelineOf(bot, replyId)).filter((event) => event.type === "reply.extension");
    expect(events.at(-1)).toMatchObject({
      replyId,
      data: { extension, phase, status: "failed", reason: expect.stringContaining(reason) },
    });
    expect((await timelineOf(bot, replyId)).some((event) => event.type === "message.sent")).toBe(false);
  };

  it.each([
    ["faulty.empty", "returned an empty message group"],
    ["faulty.no_segments", "message 1 has no segments"],
    ["faulty.not_object", "returned string, not an object"],
    ["faulty.wrong_field", 'the result has unknown field "message"'],
    ["faulty.bad_type", "/messages/0/segments/0/type must be one of text, image, emoji, voice"],
    ["faulty.bad_voice", "binary_data_base64 is not audio"],
    ["faulty.unknown_hash", "hash deadbeef is not an attachment of this reply"],
    ["faulty.throws", "TTS 服务挂了"],
    ["faulty.slow", "timed out after 150 ms"],
  ])("%s: %s", async (extension, reason) => {
    const ended = await replyWith(extension, { text: "这是一段回复" });
    await expectFailed(ended, extension, "before_send", reason);
  });

  it.each([
    ["faulty.prepare_throws", "prepare 坏了"],
    ["faulty.prepare_nothing", "returned undefined, not an object"],
    ["faulty.prepare_number", "/extra_prompt must be string"],
    ["faulty.prepare_messages", 'the result has unknown field "messages"'],
  ])("%s fails before generation (%s): the replyer is never asked", async (extension, reason) => {
    const before = llm.requests.length;
    llm.enqueue({
      toolCalls: [{ name: "reply", arguments: { plugin_options: { [extension]: {} } } }],
    });
    qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: mention("来段语音") });
    const ended = await bot.turnFinished(++turns);
    await expectFailed(ended, extension, "prepare", reason);
    expect(llm.requests.length - before).toBe(1);
  });

  it.each([
    ["disable", "unloaded or disabled"],
    ["reload", "reloaded"],
  ])("fails a reply whose extension is %sd while the reply is being written", async (action, what) => {
    const ended = await replyWith("fickle.ext", async () => {
      await postApi(bot, `/api/plugins/fickle/${action}`);
      return { text: "写好了" };
    });
    await expectFailed(
      ended,
      "fickle.ext",
      "before_send",
      `the extension was ${what} while the reply was in flight`,
    );
    // prepare ran on the version the reply selected; before_send never ran on any version.
    expect(seenCalls().map((call) => call.phase)).toEqual(["prepare"]);
    if (action === "disable") await postApi(bot, "/api/plugins/fickle/enable");
  });

  it("gives concurrent replies distinct reply_ids, each the same in both phases", async () => {
    const slowAnswer = { text: "一起回复", delayMs: 300 };
    const select = { toolCalls: [{ name: "reply", arguments: { plugin_options: { "fickle.ext": {} } } }] };
    // By request, not by arrival: one turn's replyer may ask before the other's planner.
    const answer = (request: RecordedLlmRequest) =>
      request.toolNames.includes("reply") ? select : slowAnswer;
    llm.enqueue(answer, answer, answer, answer);
    qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: mention("一") });
    qq.pushGroupMessage({ groupId: OTHER_GROUP, userId: ALICE, message: mention("二") });
    await bot.turnFinished(++turns);
    await bot.turnFinished(++turns);
    expect(sendActions(qq)).toHaveLength(2);
    const bySession = new Map<string, Map<string, string>>();
    for (const call of seenCalls()) {
      const phases = bySession.get(call.session_id) ?? new Map<string, string>();
      phases.set(call.phase, call.reply_id);
      bySession.set(call.session_id, phases);
    }
    expect([...bySession.keys()].sort()).toEqual([
      `onebot:${SELF}:group:${GROUP}`,
      `onebot:${SELF}:group:${OTHER_GROUP}`,
    ]);
    const ids = [...bySession.values()].map((phases) => {
      expect(phases.get("prepare")).toBe(phases.get("before_send"));
      return phases.get("prepare");
    });
    expect(new Set(ids).size).toBe(2);
    // Each is the reply_id of its own turn.
    const turnIds = bot.events
      .filter((event) => event.type === "turn.finished" && event.data.status === "replied")
      .map((event) => event.replyId);
    expect(turnIds).toEqual(expect.arrayContaining(ids));
  });
});
