import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { PluginSandbox } from "../plugins/plugin-fixtures.ts";
import { pluginStatus } from "../support/bot-api.ts";
import type { BotHarness } from "../support/bot-harness.ts";
import { ALICE, GROUP, mention, SELF } from "../support/messages.ts";
import type { OneBotStandIn } from "../support/onebot-standin.ts";
import { type Scene, startScene } from "../support/scene.ts";
import type { ScriptedLlmServer } from "../support/scripted-llm-server.ts";
import {
  extensionPlugin,
  forgetSeen,
  pluginOptionsOf,
  seenCalls,
  sendActions,
} from "./extension-fixtures.ts";

/** A reply long enough to be split into two messages at the 20-character chunk limit below. */
const LONG_REPLY = "第一句话正好写到这里结束了。第二句话也写得很长才行。";

/**
 * Reply extensions' parameter rules beyond the basics: a full object JSON Schema, the checks the
 * host makes (types, required, enums, defaults, unknown parameters), and the payload of a
 * private-chat reply whose text was split. One bot serves the whole file.
 */
describe("reply extension parameters and payload details", () => {
  const sandbox = new PluginSandbox();
  let llm: ScriptedLlmServer;
  let bot: BotHarness;
  let scene: Scene | undefined;
  let qq: OneBotStandIn;
  let turns = 0;

  beforeAll(async () => {
    sandbox.add("schema", {
      "index.ts": extensionPlugin(
        // A full object JSON Schema that says nothing about additionalProperties.
        {
          name: "strict",
          options: `{ parameters: {
            type: "object",
            properties: {
              level: { type: "integer", minimum: 1 },
              mode: { type: "string", enum: ["cat", "robot"], default: "cat" },
            },
            required: ["level"],
          } }`,
        },
        // A full object JSON Schema that allows more.
        {
          name: "open",
          options: `{ parameters: { type: "object", properties: { mode: { type: "string" } }, additionalProperties: true } }`,
        },
      ),
    });
    // The same parameter name as schema.strict, with another type: each sees its own value.
    sandbox.add("other", {
      "index.ts": extensionPlugin({ name: "tone", options: `{ parameters: { mode: { type: "boolean" } } }` }),
    });
    sandbox.add("baddefault", {
      "index.ts": extensionPlugin({
        name: "broken",
        options: `{ parameters: { attach_voice: { type: "boolean", default: "yes" } } }`,
      }),
    });
    scene = await startScene({ config: { plugins: { dirs: [sandbox.root] }, chat: { textChunkLimit: 20 } } });
    ({ llm, bot, qq } = scene);
  });

  afterAll(async () => {
    await scene?.close();
    scene = undefined;
    sandbox.remove();
  });

  beforeEach(() => forgetSeen(qq));

  const ask = () =>
    qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, nickname: "Alice", message: mention("说点什么") });

  /** A turn whose planner calls reply with `pluginOptions` twice in a row (both refused, so the turn fails). */
  const refusedTwice = async (first: unknown, second: unknown) => {
    const before = llm.requests.length;
    llm.enqueue(
      { toolCalls: [{ name: "reply", arguments: { plugin_options: first } }] },
      { toolCalls: [{ name: "reply", arguments: { plugin_options: second } }] },
    );
    ask();
    const ended = await bot.turnFinished(++turns);
    expect(ended.data.status).toBe("failed");
    // Only the two planner requests: no replyer, no extension call, nothing sent.
    expect(llm.requests.length - before).toBe(2);
    expect(seenCalls()).toEqual([]);
    expect(sendActions(qq)).toEqual([]);
    const told = llm.requests.at(-1)!.body.messages.find((message) => message.role === "tool");
    return { told: String(told?.content), reason: String(ended.data.reason) };
  };

  it("refuses a default that breaks its own schema when the plugin loads", async () => {
    // The scene starts once every plugin's first load is over.
    const status = await pluginStatus(bot, "baddefault");
    expect(status.state).toBe("failed");
    expect(status.error).toContain(
      'reply extension baddefault.broken: the default of parameter "attach_voice" is invalid: attach_voice must be boolean',
    );
  });

  it("declares a full object schema as written, refusing unknown parameters unless it allows them", async () => {
    llm.enqueue({ toolCalls: [{ name: "no_reply", arguments: { reason: "看看参数" } }] });
    ask();
    await bot.turnFinished(++turns);
    const declared = pluginOptionsOf(llm.requests.at(-1)!)!;
    expect(Object.keys(declared.properties)).toEqual(["other.tone", "schema.open", "schema.strict"]);
    expect(declared.properties["schema.strict"]).toEqual({
      type: "object",
      properties: {
        level: { type: "integer", minimum: 1 },
        mode: { type: "string", enum: ["cat", "robot"], default: "cat" },
      },
      required: ["level"],
      additionalProperties: false,
    });
    expect(declared.properties["schema.open"]).toMatchObject({ additionalProperties: true });
  });

  it("checks types, required parameters, enums and unknown parameters, and tells the model", async () => {
    const { told, reason } = await refusedTwice(
      { "schema.strict": { mode: "dog", extra: 1 } },
      { "schema.strict": { level: "high" }, "other.tone": { mode: "loud" } },
    );
    expect(told).toContain("调用 reply 出错");
    expect(told).toContain("must have required property 'level'");
    expect(told).toContain('mode must be one of ["cat","robot"]');
    expect(told).toContain('unknown parameter "extra"');
    expect(reason).toContain('plugin_options["schema.strict"]: level must be integer');
    expect(reason).toContain('plugin_options["other.tone"]: mode must be boolean');
  });

  it("passes each selected extension only its own parameters, defaults filled, and the allowed extras", async () => {
    llm.enqueue(
      {
        toolCalls: [
          {
            name: "reply",
            arguments: {
              plugin_options: {
                "schema.strict": { level: 2 },
                "other.tone": { mode: true },
                "schema.open": { mode: "robot", volume: 11 },
              },
            },
          },
        ],
      },
      { text: "好" },
    );
    ask();
    expect((await bot.turnFinished(++turns)).data.status).toBe("replied");
    const parametersOf = (extension: string) =>
      seenCalls()
        .filter((call) => call.extension === extension)
        .map((call) => [call.phase, call.parameters]);
    expect(parametersOf("schema.strict")).toEqual([
      ["prepare", { level: 2, mode: "cat" }],
      ["before_send", { level: 2, mode: "cat" }],
    ]);
    expect(parametersOf("other.tone")).toEqual([
      ["prepare", { mode: true }],
      ["before_send", { mode: true }],
    ]);
    expect(parametersOf("schema.open")).toEqual([
      ["prepare", { mode: "robot", volume: 11 }],
      ["before_send", { mode: "robot", volume: 11 }],
    ]);
  });

  it("gives a private chat's payload is_group_chat false and group_id null, and before_send the whole split reply", async () => {
    llm.enqueue(
      { toolCalls: [{ name: "reply", arguments: { plugin_options: { "other.tone": {} } } }] },
      { text: LONG_REPLY },
    );
    const messageId = qq.pushPrivateMessage({ userId: ALICE, message: "在吗" });
    expect((await bot.turnFinished(++turns)).data.status).toBe("replied");
    const sessionId = `onebot:${SELF}:private:${ALICE}`;
    const [prepare, beforeSend] = seenCalls();
    const chat = {
      platform: "onebot",
      is_group_chat: false,
      group_id: null,
      user_id: ALICE,
      session_id: sessionId,
      stream_id: sessionId,
    };
    expect(prepare).toMatchObject({
      phase: "prepare",
      session_id: sessionId,
      reply_message_id: messageId,
      chat,
      text: "",
      messages: [],
    });
    // The text is the whole reply; the group is what will be sent, one message per chunk.
    expect(beforeSend).toMatchObject({
      phase: "before_send",
      reply_id: prepare!.reply_id,
      chat,
      text: LONG_REPLY,
      messages: [
        { segments: [{ type: "text", data: "第一句话正好写到这里结束了。" }], quote_previous: false },
        { segments: [{ type: "text", data: "第二句话也写得很长才行。" }], quote_previous: false },
      ],
    });
    expect(sendActions(qq)).toHaveLength(2);
    expect(qq.sent.slice(-2).map((sent) => sent.message)).toEqual([
      [{ type: "text", data: { text: "第一句话正好写到这里结束了。" } }],
      [{ type: "text", data: { text: "第二句话也写得很长才行。" } }],
    ]);
  });
});
