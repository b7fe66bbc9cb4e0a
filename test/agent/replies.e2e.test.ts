import { describe, expect, it } from "vitest";
import { startBot } from "../support/bot-harness.ts";
import { chatScenes } from "../support/chat-scene.ts";
import { ALICE, BOB, GROUP, mention, SELF } from "../support/messages.ts";
import { OneBotStandIn } from "../support/onebot-standin.ts";
import { ScriptedLlmServer } from "../support/scripted-llm-server.ts";
import { waitFor } from "../support/wait.ts";

describe("end-to-end replies through OneBot and a scripted model", () => {
  const start = chatScenes();

  it("answers an @mention with the replyer's text, without the mention in the prompt", async () => {
    const { llm, willReply, ask, expectReply } = await start();
    willReply("在的，怎么啦");
    ask("你好呀");
    expect((await expectReply("在的，怎么啦")).action).toBe("send_group_msg");
    const planner = llm.lastRequestWithTool("reply")!;
    expect(planner.toolNames).toEqual(expect.arrayContaining(["reply", "no_reply", "wait"]));
    expect(planner.promptText).toContain("Alice(30001): 你好呀");
    expect(planner.promptText).not.toContain("@");
    const replyer = llm.lastRequestWithoutTool("reply")!;
    expect(replyer.toolNames).toEqual([]);
    expect(replyer.promptText).toContain("你是群里的一名普通成员");
    expect(llm.unscriptedRequests).toEqual([]);
  });

  it("stays quiet on plain chatter and shows it as history in the next prompt", async () => {
    const { llm, willReply, ask, expectReply, expectNoReply } = await start();
    ask("今天食堂的面好难吃", { from: BOB, nickname: "Bob", mention: false });
    await expectNoReply(200);
    expect(llm.requests).toHaveLength(0);

    willReply("确实");
    ask("你觉得呢");
    await expectReply("确实");
    const planner = llm.lastRequestWithTool("reply")!;
    expect(planner.promptText).toContain("Bob(30002): 今天食堂的面好难吃");
  });

  it("replies to a private message", async () => {
    const { willReply, ask, expectReply } = await start();
    willReply("私聊收到");
    ask("在吗", { privately: true });
    const sent = await expectReply("私聊收到");
    expect(sent.action).toBe("send_private_msg");
    expect(sent.userId).toBe(ALICE);
  });

  it("quotes the target message when the planner sets set_quote", async () => {
    const { llm, ask, expectReply } = await start();
    const id = ask("第一句");
    await waitFor(() => llm.requests.length === 0);
    llm.enqueue(
      { toolCalls: [{ name: "reply", arguments: { msg_id: id, set_quote: true } }] },
      { text: "回你" },
    );
    const sent = await expectReply("回你");
    const segments = sent.message as Array<{ type: string; data: Record<string, unknown> }>;
    expect(segments[0]).toEqual({ type: "reply", data: { id } });
    expect(segments[1]).toEqual({ type: "text", data: { text: "回你" } });
  });

  it("sends nothing on no_reply and records the reason", async () => {
    const { llm, bot, ask, expectNoReply } = await start();
    llm.enqueue({ toolCalls: [{ name: "no_reply", arguments: { reason: "不是在问我" } }] });
    ask("随便说说");
    const finished = await bot.turnFinished();
    await expectNoReply(100);
    expect(finished.data).toMatchObject({
      status: "silent",
      reason: "no_reply: 不是在问我",
    });
    expect(llm.requests).toHaveLength(1);
  });

  it("stays silent when the planner calls no tool", async () => {
    const { llm, bot, ask, expectNoReply } = await start();
    llm.enqueue({ text: "我想想……还是不说了" });
    ask("?");
    const finished = await bot.turnFinished();
    await expectNoReply(0);
    expect(finished.data.status).toBe("silent");
    expect(String(finished.data.reason)).toContain("planner called no tool");
  });

  it("retries after a 500 and replies exactly once", async () => {
    const { llm, ask, expectReply, expectNoReply } = await start();
    llm.enqueue({ status: 500 }, { toolCalls: [{ name: "reply", arguments: {} }] }, { text: "好了" });
    ask("在吗");
    await expectReply("好了");
    await expectNoReply(200);
  });

  it("answers a burst of mentions that arrives during one planner call in one turn", async () => {
    const { llm, ask, expectReply, expectNoReply } = await start();
    llm.enqueue(
      { toolCalls: [{ name: "reply", arguments: {} }], delayMs: 400 },
      (request) => {
        expect(request.promptText).toContain("第二个问题");
        expect(request.promptText).toContain("第三个问题");
        return { toolCalls: [{ name: "reply", arguments: {} }] };
      },
      { text: "一起回答：都可以" },
    );
    ask("第一个问题");
    await waitFor(() => llm.requests.length === 1);
    ask("第二个问题", { from: BOB });
    ask("第三个问题");
    await expectReply("一起回答：都可以");
    await expectNoReply(300);
    expect(llm.unscriptedRequests).toEqual([]);
  });

  it("fails a turn cleanly when every model is down, then answers the next message", async () => {
    const { llm, bot, willReply, ask, expectReply, expectNoReply } = await start();
    llm.enqueue({ status: 503 }, { status: 503 });
    ask("第一条");
    const failed = await bot.turnFinished();
    await expectNoReply(0);
    expect(failed.data.status).toBe("failed");
    expect(String(failed.data.reason)).toContain("503");

    willReply("恢复了");
    ask("第二条");
    await expectReply("恢复了");
  });

  it("tells the model once about malformed tool arguments, then fails the turn", async () => {
    const { llm, bot, ask, expectNoReply } = await start();
    llm.enqueue({ toolCalls: [{ name: "reply", arguments: "{not json" }] }, (request) => {
      const last = request.body.messages.at(-1)!;
      expect(last.role).toBe("tool");
      return { toolCalls: [{ name: "reply", arguments: "{still not json" }] };
    });
    ask("hi");
    const failed = await bot.turnFinished();
    await expectNoReply(0);
    expect(failed.data.status).toBe("failed");
    expect(String(failed.data.reason)).toContain("malformed tool arguments twice");
    expect(llm.requests).toHaveLength(2);
  });

  it("reports invalid reply arguments to the model and lets it correct itself", async () => {
    const { llm, ask, expectReply } = await start();
    llm.enqueue(
      { toolCalls: [{ name: "reply", arguments: { msg_id: "no-such-message" } }] },
      { toolCalls: [{ name: "reply", arguments: {} }] },
      { text: "更正后回复" },
    );
    ask("hi");
    await expectReply("更正后回复");
    const second = llm.requestsWithTool("reply")[1]!;
    expect(JSON.stringify(second.body.messages.at(-1))).toContain("no-such-message");
  });

  it("splits a long reply into several messages on sentence boundaries", async () => {
    const { willReply, ask, expectReply } = await start({ config: { chat: { textChunkLimit: 15 } } });
    willReply("这是第一句话。这是第二句话！这是第三句。");
    ask("讲讲");
    await expectReply("这是第一句话。这是第二句话！");
    await expectReply("这是第三句。");
  });
});

describe("model fallback and memory across restarts", () => {
  it("uses the second model when the first is down", async () => {
    const down = await ScriptedLlmServer.start();
    const up = await ScriptedLlmServer.start();
    down.enqueue({ status: 500 }, { status: 500 }, { status: 500 }, { status: 500 });
    up.enqueue({ toolCalls: [{ name: "reply", arguments: {} }] }, { text: "备用模型在" });
    const bot = await startBot({
      config: {
        llm: {
          providers: [
            { id: "a", type: "openai-compatible", baseUrl: down.baseUrl, maxRetries: 1 },
            { id: "b", type: "openai-compatible", baseUrl: up.baseUrl, maxRetries: 1 },
          ],
          models: { planner: ["a/m1", "b/m2"], replyer: ["a/m1", "b/m2"] },
        },
      },
    });
    const qq = new OneBotStandIn({ selfId: SELF });
    try {
      await qq.connectReverse(bot.wsUrl);
      qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: mention("有人吗") });
      const sent = await qq.waitForSent(undefined, 10_000);
      expect(sent.text).toBe("备用模型在");
      expect(up.requests.map((r) => r.body.model)).toEqual(["m2", "m2"]);
    } finally {
      await qq.close();
      await bot.dispose();
      await down.close();
      await up.close();
    }
  });

  it("still knows earlier messages after a restart", async () => {
    const llm = await ScriptedLlmServer.start();
    let bot = await startBot({ llm });
    const dataDir = bot.dataDir;
    let qq = new OneBotStandIn({ selfId: SELF });
    try {
      await qq.connectReverse(bot.wsUrl);
      llm.enqueue({ toolCalls: [{ name: "reply", arguments: {} }] }, { text: "记住了，你喜欢猫" });
      qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: mention("我最喜欢猫") });
      expect((await bot.turnFinished()).data.status).toBe("replied");
      await qq.close();
      await bot.stop();

      bot = await startBot({ llm, dataDir });
      qq = new OneBotStandIn({ selfId: SELF });
      await qq.connectReverse(bot.wsUrl);
      llm.enqueue({ toolCalls: [{ name: "reply", arguments: {} }] }, { text: "猫" });
      qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: mention("我喜欢什么") });
      await qq.waitForSent(undefined, 5_000);
      const planner = llm.lastRequestWithTool("reply")!;
      // History reads like new messages: labelled, the leading mention of the bot left out.
      expect(planner.promptText).toMatch(/\[msg_id=\d+\] \[[\d:]+\] user30001\(30001\): 我最喜欢猫/);
      expect(planner.promptText).toContain("记住了，你喜欢猫");
    } finally {
      await qq.close();
      await bot.stop();
      await llm.close();
    }
  });
});
