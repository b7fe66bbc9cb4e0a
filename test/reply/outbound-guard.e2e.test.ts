import { describe, expect, it } from "vitest";
import { chatScenes } from "../support/chat-scene.ts";

/**
 * What the group sees when a model writes internal text into its reply: reasoning, transcript
 * labels, tool-call markup and "say nothing" sentinels never reach the chat.
 */
describe("the outbound guard on the reply path", () => {
  const start = chatScenes();

  const cleaned: Array<[string, string, string]> = [
    [
      "a think block before the answer",
      "<think>他在问周末安排，简短回答</think>周末我打算在家看番。",
      "周末我打算在家看番。",
    ],
    ["reasoning closed by a lone </think>", "先想想他要什么……</think>\n好呀，明天见。", "好呀，明天见。"],
    ["a copied message-id tag", "[msg_id=100001] 这个我知道，是周五。", "这个我知道，是周五。"],
    ["a copied header with time and name", "[10:00:05] 紬(你): 我也觉得不错", "我也觉得不错"],
    [
      "tool-call markup written as text",
      '<tool_call>{"name":"poke"}</tool_call>马上来<|tool_call|>',
      "马上来",
    ],
    [
      "a <think> mentioned in the text, kept as it is",
      "推理模型会先写 <think> 标签，再写回答。",
      "推理模型会先写 <think> 标签，再写回答。",
    ],
  ];

  it.each(cleaned)("sends only the answer for %s", async (_, written, seen) => {
    const { willReply, ask, expectReply, expectNoReply } = await start();
    willReply(written);
    ask("问一下");
    await expectReply(seen);
    await expectNoReply(100);
  });

  const markers: Array<[string, string]> = [
    ["NO_REPLY", "NO_REPLY"],
    ["SKIP", "SKIP"],
    ["[NO_REPLY]", "[NO_REPLY]"],
    ["<no_reply>", "<no_reply>"],
    ["an unclosed think block", "<think>他只是在打招呼，不用回"],
    ["a think block and a sentinel", "<think>不用回</think>\nNO_REPLY"],
    ["a reply call written as JSON", '{"name": "reply", "arguments": {"text": "在的"}}'],
  ];

  it.each(markers)(
    "sends nothing when the reply is only %s, ending the turn silent with one log line",
    async (_, written) => {
      const { bot, willReply, ask, expectNoReply } = await start();
      willReply(written);
      ask("嗯嗯");
      const finished = await bot.turnFinished();
      await expectNoReply(100);
      expect(finished.data).toMatchObject({
        status: "silent",
        reason: "the model's reply was only an internal marker",
      });
      expect(bot.logs.filter((line) => line.msg.startsWith("reply not sent:"))).toEqual([
        expect.objectContaining({
          level: 30,
          msg: "reply not sent: the model's reply was only an internal marker",
        }),
      ]);
    },
  );

  it("holds back a streamed think block longer than a message and sends only the answer", async () => {
    const { llm, ask, expectReply, expectNoReply } = await start({
      config: { chat: { textChunkLimit: 10 } },
    });
    llm.enqueue(
      { toolCalls: [{ name: "reply", arguments: {} }] },
      { text: "<think>这段推理比一条消息还长得多。</think>好的。明天见！", stream: { tokensPerSecond: 200 } },
    );
    ask("明天见？");
    await expectReply("好的。明天见！");
    await expectNoReply(100);
  });

  it("holds back a streamed line until its start is known not to be a copied label", async () => {
    const { llm, ask, expectReply, expectNoReply } = await start({
      config: { chat: { textChunkLimit: 10 } },
    });
    llm.enqueue(
      { toolCalls: [{ name: "reply", arguments: {} }] },
      {
        text: "[msg_id=1] 好的，没问题。\n[10:00:05] 紬(你): 那就明天见吧！",
        stream: { tokensPerSecond: 200 },
      },
    );
    ask("明天见？");
    await expectReply("好的，没问题。");
    await expectReply("那就明天见吧！");
    await expectNoReply(100);
  });

  it("guards the reply text of chat.mode single", async () => {
    const { llm, bot, ask, expectReply, expectNoReply } = await start({
      config: { chat: { mode: "single" } },
    });
    llm.enqueue({
      toolCalls: [{ name: "reply", arguments: { text: "[msg_id=1] <think>想想</think>在的" } }],
    });
    ask("在吗");
    await expectReply("在的");
    llm.enqueue({ toolCalls: [{ name: "reply", arguments: { text: "NO_REPLY" } }] });
    ask("嗯嗯");
    expect((await bot.turnFinished(2)).data).toMatchObject({
      status: "silent",
      reason: "the model's reply was only an internal marker",
    });
    await expectNoReply(100);
  });
});
