import { describe, expect, it } from "vitest";
import { askInGroup, extensionPlugin, scenePerTest, seenCalls } from "../reply/extension-fixtures.ts";

describe("chat.mode: single — the planner's reply call carries the text", () => {
  const scenes = scenePerTest();

  it("answers each replied turn with one model call, sending the tool's text as it is", async () => {
    const { llm, bot, qq } = await scenes.start({ config: { chat: { mode: "single" } } });
    llm.enqueue({ toolCalls: [{ name: "reply", arguments: { text: "在的，怎么啦", set_quote: true } }] });
    const asked = askInGroup(qq, "你好呀");
    expect((await bot.turnFinished(1)).data.status).toBe("replied");
    llm.enqueue({ toolCalls: [{ name: "reply", arguments: { text: "我也觉得" } }] });
    askInGroup(qq, "今天天气不错");
    expect((await bot.turnFinished(2)).data.status).toBe("replied");

    expect(llm.requests).toHaveLength(2);
    expect(qq.sent.map((sent) => sent.message)).toEqual([
      [
        { type: "reply", data: { id: asked } },
        { type: "text", data: { text: "在的，怎么啦" } },
      ],
      [{ type: "text", data: { text: "我也觉得" } }],
    ]);
    expect(bot.events.some((event) => event.type === "replyer.generated")).toBe(false);
    const reply = llm.requests[0]!.body.tools!.find((tool) => tool.function.name === "reply")!;
    expect(reply.function.parameters).toMatchObject({
      properties: { text: { type: "string" } },
      required: ["text"],
    });
    expect(reply.function.parameters?.properties).not.toHaveProperty("intent");
    expect(llm.requests[0]!.promptText).toContain("把要发到聊天里的消息写在 text 里");
  });

  it("tells the model a reply call without text is invalid and sends nothing for it", async () => {
    const { llm, bot, qq } = await scenes.start({ config: { chat: { mode: "single" } } });
    llm.enqueue(
      { toolCalls: [{ name: "reply", arguments: {} }] },
      { toolCalls: [{ name: "reply", arguments: { text: "补上正文" } }] },
    );
    askInGroup(qq, "在吗");
    expect((await bot.turnFinished(1)).data.status).toBe("replied");
    expect(qq.sent.map((sent) => sent.text)).toEqual(["补上正文"]);
    // Checked against the reply tool's schema like any tool's arguments.
    expect(llm.requests[1]!.promptText).toContain(
      "调用 reply 出错：arguments must have required property 'text'",
    );
  });

  it("still runs a selected reply extension: its extra_prompt goes to the planner's next round, before_send rewrites", async () => {
    const sandbox = scenes.sandbox();
    sandbox.add("alpha", {
      "index.ts": extensionPlugin({
        name: "cat",
        options: "{ parameters: {} }",
        body: `if (payload.phase === "prepare") return { extra_prompt: "每句话结尾加上「喵」。" };
    return { messages: [...payload.messages, { segments: [{ type: "text", data: "（猫猫）" }], quote_previous: false }] };`,
      }),
    });
    const { llm, bot, qq } = await scenes.start({
      config: { chat: { mode: "single" }, plugins: { dirs: [sandbox.root] } },
    });
    const options = { plugin_options: { "alpha.cat": {} } };
    llm.enqueue(
      { toolCalls: [{ name: "reply", arguments: { text: "你好", ...options } }] },
      { toolCalls: [{ name: "reply", arguments: { text: "你好喵", ...options } }] },
    );
    askInGroup(qq, "打个招呼");

    expect((await bot.turnFinished(1)).data.status).toBe("replied");
    // Both calls are the planner's: the requirement came back as the first reply call's result.
    expect(llm.requests).toHaveLength(2);
    expect(llm.requests[1]!.toolNames).toContain("reply");
    expect(llm.requests[1]!.promptText).toContain("每句话结尾加上「喵」。");
    expect(qq.sent.map((sent) => sent.text)).toEqual(["你好喵", "（猫猫）"]);
    expect(seenCalls().map((call) => [call.phase, call.text])).toEqual([
      ["prepare", ""],
      ["before_send", "你好喵"],
    ]);
  });
});
