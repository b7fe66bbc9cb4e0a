import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type BotHarness, startBot } from "../support/bot-harness.ts";
import { ALICE, BOB, GROUP, mention, plain, SELF } from "../support/messages.ts";
import { OneBotStandIn } from "../support/onebot-standin.ts";
import { type Scene, startScene } from "../support/scene.ts";
import { ScriptedLlmServer } from "../support/scripted-llm-server.ts";
import { sleep, waitFor } from "../support/wait.ts";

describe("end-to-end replies through OneBot and a scripted model", () => {
  let llm: ScriptedLlmServer;
  let bot: BotHarness;
  let qq: OneBotStandIn;
  let scene: Scene;

  beforeEach(async () => {
    scene = await startScene();
    ({ llm, bot, qq } = scene);
  });

  afterEach(() => scene.close());

  it("answers an @mention with the replyer's text, without the mention in the prompt", async () => {
    llm.enqueue({ toolCalls: [{ name: "reply", arguments: {} }] }, { text: "在的，怎么啦" });
    qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, nickname: "Alice", message: mention("你好呀") });
    const sent = await qq.waitForSent((s) => s.groupId === GROUP, 5_000);
    expect(sent.action).toBe("send_group_msg");
    expect(sent.text).toBe("在的，怎么啦");
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
    qq.pushGroupMessage({
      groupId: GROUP,
      userId: BOB,
      nickname: "Bob",
      message: plain("今天食堂的面好难吃"),
    });
    await sleep(200);
    expect(llm.requests).toHaveLength(0);
    expect(qq.sent).toHaveLength(0);

    llm.enqueue({ toolCalls: [{ name: "reply", arguments: {} }] }, { text: "确实" });
    qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: mention("你觉得呢") });
    await qq.waitForSent(undefined, 5_000);
    const planner = llm.lastRequestWithTool("reply")!;
    expect(planner.promptText).toContain("Bob(30002): 今天食堂的面好难吃");
  });

  it("replies to a private message", async () => {
    llm.enqueue({ toolCalls: [{ name: "reply", arguments: {} }] }, { text: "私聊收到" });
    qq.pushPrivateMessage({ userId: ALICE, message: plain("在吗") });
    const sent = await qq.waitForSent(undefined, 5_000);
    expect(sent.action).toBe("send_private_msg");
    expect(sent.userId).toBe(ALICE);
    expect(sent.text).toBe("私聊收到");
  });

  it("quotes the target message when the planner sets set_quote", async () => {
    const id = qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: mention("第一句") });
    await waitFor(() => llm.requests.length === 0);
    llm.enqueue(
      { toolCalls: [{ name: "reply", arguments: { msg_id: id, set_quote: true } }] },
      { text: "回你" },
    );
    const sent = await qq.waitForSent(undefined, 5_000);
    const segments = sent.message as Array<{ type: string; data: Record<string, unknown> }>;
    expect(segments[0]).toEqual({ type: "reply", data: { id } });
    expect(segments[1]).toEqual({ type: "text", data: { text: "回你" } });
  });

  it("sends nothing on no_reply and records the reason", async () => {
    llm.enqueue({ toolCalls: [{ name: "no_reply", arguments: { reason: "不是在问我" } }] });
    qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: mention("随便说说") });
    const finished = await bot.turnFinished();
    await sleep(100);
    expect(qq.sent).toHaveLength(0);
    expect(finished.data).toMatchObject({ status: "silent", reason: "no_reply: 不是在问我" });
    expect(llm.requests).toHaveLength(1);
  });

  it("stays silent when the planner calls no tool", async () => {
    llm.enqueue({ text: "我想想……还是不说了" });
    qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: mention("?") });
    const finished = await bot.turnFinished();
    expect(qq.sent).toHaveLength(0);
    expect(finished.data.status).toBe("silent");
    expect(String(finished.data.reason)).toContain("planner called no tool");
  });

  it("retries after a 500 and replies exactly once", async () => {
    llm.enqueue({ status: 500 }, { toolCalls: [{ name: "reply", arguments: {} }] }, { text: "好了" });
    qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: mention("在吗") });
    await qq.waitForSent(undefined, 8_000);
    await sleep(200);
    expect(qq.sent).toHaveLength(1);
    expect(qq.sent[0]!.text).toBe("好了");
  });

  it("answers a burst of mentions that arrives during one planner call in one turn", async () => {
    llm.enqueue(
      { toolCalls: [{ name: "reply", arguments: {} }], delayMs: 400 },
      (request) => {
        expect(request.promptText).toContain("第二个问题");
        expect(request.promptText).toContain("第三个问题");
        return { toolCalls: [{ name: "reply", arguments: {} }] };
      },
      { text: "一起回答：都可以" },
    );
    qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: mention("第一个问题") });
    await waitFor(() => llm.requests.length === 1);
    qq.pushGroupMessage({ groupId: GROUP, userId: BOB, message: mention("第二个问题") });
    qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: mention("第三个问题") });
    await qq.waitForSent(undefined, 8_000);
    await sleep(300);
    expect(qq.sent.map((s) => s.text)).toEqual(["一起回答：都可以"]);
    expect(llm.unscriptedRequests).toEqual([]);
  });

  it("fails a turn cleanly when every model is down, then answers the next message", async () => {
    llm.enqueue({ status: 503 }, { status: 503 });
    qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: mention("第一条") });
    const failed = await bot.turnFinished();
    expect(failed.data.status).toBe("failed");
    expect(String(failed.data.reason)).toContain("503");
    expect(qq.sent).toHaveLength(0);

    llm.enqueue({ toolCalls: [{ name: "reply", arguments: {} }] }, { text: "恢复了" });
    qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: mention("第二条") });
    const sent = await qq.waitForSent(undefined, 5_000);
    expect(sent.text).toBe("恢复了");
  });

  it("tells the model once about malformed tool arguments, then fails the turn", async () => {
    llm.enqueue({ toolCalls: [{ name: "reply", arguments: "{not json" }] }, (request) => {
      const last = request.body.messages.at(-1)!;
      expect(last.role).toBe("tool");
      return { toolCalls: [{ name: "reply", arguments: "{still not json" }] };
    });
    qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: mention("hi") });
    const failed = await bot.turnFinished();
    expect(failed.data.status).toBe("failed");
    expect(String(failed.data.reason)).toContain("malformed tool arguments twice");
    expect(qq.sent).toHaveLength(0);
    expect(llm.requests).toHaveLength(2);
  });

  it("reports invalid reply arguments to the model and lets it correct itself", async () => {
    llm.enqueue(
      { toolCalls: [{ name: "reply", arguments: { msg_id: "no-such-message" } }] },
      { toolCalls: [{ name: "reply", arguments: {} }] },
      { text: "更正后回复" },
    );
    qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: mention("hi") });
    const sent = await qq.waitForSent(undefined, 5_000);
    expect(sent.text).toBe("更正后回复");
    const second = llm.requestsWithTool("reply")[1]!;
    expect(JSON.stringify(second.body.messages.at(-1))).toContain("no-such-message");
  });

  it("splits a long reply into several messages on sentence boundaries", async () => {
    await bot.dispose();
    bot = await startBot({ llm, config: { chat: { textChunkLimit: 15 } } });
    await qq.close();
    qq = new OneBotStandIn({ selfId: SELF });
    await qq.connectReverse(bot.wsUrl);
    llm.enqueue(
      { toolCalls: [{ name: "reply", arguments: {} }] },
      { text: "这是第一句话。这是第二句话！这是第三句。" },
    );
    qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: mention("讲讲") });
    await waitFor(() => qq.sent.length === 2, 5_000);
    expect(qq.sent.map((s) => s.text)).toEqual(["这是第一句话。这是第二句话！", "这是第三句。"]);
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
