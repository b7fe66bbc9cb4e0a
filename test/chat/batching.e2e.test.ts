import { afterEach, describe, expect, it } from "vitest";
import type { BotHarness } from "../support/bot-harness.ts";
import { type ChatScene, chatScenes } from "../support/chat-scene.ts";
import { BOB, GROUP, SELF, plain as text } from "../support/messages.ts";
import type { OneBotStandIn } from "../support/onebot-standin.ts";
import { type Scene, startScene } from "../support/scene.ts";
import type { ScriptedLlmServer } from "../support/scripted-llm-server.ts";
import { sleep } from "../support/wait.ts";

let scene: Scene | undefined;
let llm: ScriptedLlmServer;
let bot: BotHarness;
let qq: OneBotStandIn;

async function start(chat: Record<string, unknown>): Promise<void> {
  scene = await startScene({ config: { chat } });
  ({ llm, bot, qq } = scene);
}

afterEach(async () => {
  await scene?.close();
  scene = undefined;
});

const chatter = (line: string, userId = BOB) =>
  qq.pushGroupMessage({ groupId: GROUP, userId, nickname: "Bob", message: text(line) });

describe("realtime windows", () => {
  it("answers a sender's burst of three lines once, with all three in the prompt", async () => {
    await start({ realtime: { windowMs: 150, maxWindowMs: 2_000 } });
    llm.enqueue({ toolCalls: [{ name: "reply", arguments: {} }] }, { text: "一起回答" });
    qq.pushGroupMessage({
      groupId: GROUP,
      userId: BOB,
      nickname: "Bob",
      message: [{ type: "at", data: { qq: SELF } }, ...text(" 问个事")],
    });
    await sleep(50);
    chatter("上海明天");
    await sleep(50);
    chatter("会下雨吗");
    await qq.waitForSent(undefined, 3_000);
    await sleep(300);
    expect(qq.sent.map((s) => s.text)).toEqual(["一起回答"]);
    expect(llm.requests).toHaveLength(2);
    const prompt = llm.requests[0]!.promptText;
    expect(prompt).toMatch(/Bob\(30002\): 问个事\n.*Bob\(30002\): 上海明天\n.*Bob\(30002\): 会下雨吗/);
  });

  it("answers a reply to its own message, with the lines that follow it in the order they came", async () => {
    await start({ realtime: { windowMs: 150, maxWindowMs: 2_000 } });
    llm.enqueue({ toolCalls: [{ name: "reply", arguments: {} }] }, { text: "第一问的答案" });
    qq.pushGroupMessage({ groupId: GROUP, userId: BOB, nickname: "Bob", message: text(`@紬 第一问`) });
    const answer = await qq.waitForSent(undefined, 3_000);
    await bot.waitForEvent("message.sent"); // the bot has stored what it sent

    llm.enqueue({ toolCalls: [{ name: "reply", arguments: {} }] }, { text: "第二问的答案" });
    // Whom a reply quotes is read from the store; the line right behind it must not overtake it.
    qq.pushGroupMessage({
      groupId: GROUP,
      userId: BOB,
      nickname: "Bob",
      message: [{ type: "reply", data: { id: String(answer.messageId) } }, ...text("那第二问呢")],
    });
    chatter("顺便再问一句");
    await qq.waitForSent((sent) => sent.text === "第二问的答案", 3_000);
    expect(llm.requests[2]!.promptText).toMatch(/Bob\(30002\): .*那第二问呢\n.*Bob\(30002\): 顺便再问一句/);

    // A reply to somebody else's message is chatter: no turn starts.
    qq.pushGroupMessage({
      groupId: GROUP,
      userId: BOB,
      nickname: "Bob",
      message: [{ type: "reply", data: { id: "404" } }, ...text("随便说说")],
    });
    await sleep(400);
    expect(llm.requests).toHaveLength(4);
  });
});

describe("digests", () => {
  const digest = { enabled: true, intervalMs: 200, minMessages: 3 };

  it("reads untriggered chatter and sends nothing when the model answers SKIP", async () => {
    await start({ digest });
    llm.enqueue({ text: "SKIP" });
    chatter("今天食堂的面好难吃");
    // A reply inside chatter is never resolved for a digest.
    qq.pushGroupMessage({
      groupId: GROUP,
      userId: BOB,
      nickname: "Bob",
      message: [{ type: "reply", data: { id: "123" } }, ...text("确实")],
    });
    chatter("明天去吃火锅吧");
    const finished = await bot.turnFinished();
    expect(finished.data).toMatchObject({ status: "silent", reason: "digest: SKIP" });
    await sleep(100);
    expect(qq.sent).toHaveLength(0);
    expect(llm.requests).toHaveLength(1);
    const request = llm.requests[0]!;
    expect(request.toolNames).toEqual([]);
    expect(request.promptText).toContain("SKIP");
    expect(request.promptText).toContain("Bob(30002): 今天食堂的面好难吃");
    expect(request.promptText).toContain("Bob(30002): 明天去吃火锅吧");
    expect(qq.actions.map((a) => a.action)).not.toContain("get_msg");
  });

  it("waits for minMessages, re-arming its timer, then sends what the model writes", async () => {
    await start({ digest });
    chatter("有人玩原神吗");
    chatter("我在玩");
    await sleep(450);
    expect(llm.requests).toHaveLength(0);
    llm.enqueue({ text: "我也玩，一起？" });
    chatter("来组队");
    const sent = await qq.waitForSent(undefined, 3_000);
    expect(sent.text).toBe("我也玩，一起？");
    expect(llm.requests[0]!.promptText).toContain("有人玩原神吗");
  });

  it("bounds the transcript by maxTranscriptChars, keeping the newest lines", async () => {
    await start({ digest: { ...digest, maxTranscriptChars: 80 } });
    llm.enqueue({ text: "**SKIP**" });
    chatter("最早的一条消息，应该被裁掉了");
    chatter("中间的一条消息");
    chatter("最新的一条消息");
    expect((await bot.turnFinished()).data.status).toBe("silent");
    const prompt = llm.requests[0]!.promptText;
    expect(prompt).toContain("最新的一条消息");
    expect(prompt).not.toContain("最早的一条消息");
    expect(qq.sent).toHaveLength(0);
  });

  it("leaves triggered messages to realtime turns", async () => {
    await start({ digest: { ...digest, minMessages: 1 } });
    llm.enqueue({ toolCalls: [{ name: "reply", arguments: {} }] }, { text: "在" });
    qq.pushGroupMessage({
      groupId: GROUP,
      userId: BOB,
      message: [{ type: "at", data: { qq: SELF } }, ...text(" 在吗")],
    });
    await qq.waitForSent(undefined, 3_000);
    await sleep(400);
    expect(llm.requests).toHaveLength(2);
    expect(llm.unscriptedRequests).toEqual([]);
  });
});

describe("the summary command", () => {
  const startChat = chatScenes();
  const chatterAs = (ask: ChatScene["ask"], lines: string[]) => {
    for (const line of lines) ask(line, { from: BOB, nickname: "Bob", mention: false });
  };

  it("summarises the last N stored messages on /总结 N", async () => {
    const { llm, ask, expectReply, expectNoReply } = await startChat();
    chatterAs(ask, ["话题一", "话题二", "话题三", "话题四", "话题五"]);
    await sleep(100);
    llm.enqueue({ text: "大家在聊话题三到五。" });
    ask("/总结 3", { from: "30003", nickname: "Carol" });
    await expectReply("大家在聊话题三到五。", 3_000);
    await expectNoReply(100);
    expect(llm.requests).toHaveLength(1);
    const request = llm.requests[0]!;
    expect(request.toolNames).toEqual([]);
    expect(request.promptText).toContain("共 3 条");
    for (const line of ["话题三", "话题四", "话题五"])
      expect(request.promptText).toContain(`Bob(30002): ${line}`);
    expect(request.promptText).not.toContain("话题二");
    expect(request.promptText).not.toContain("/总结");
    expect(request.promptText).toContain("Carol(30003) 请你总结");
  });

  it("says so when there is nothing to summarise, without calling the model", async () => {
    const { llm, ask, expectReply } = await startChat();
    ask("/summary", { from: BOB, mention: false });
    await expectReply("最近没有可以总结的聊天记录。", 3_000);
    expect(llm.requests).toHaveLength(0);
  });

  it("caps the count at maxCount", async () => {
    const { llm, ask, expectReply } = await startChat({ config: { chat: { summary: { maxCount: 2 } } } });
    chatterAs(ask, ["甲", "乙", "丙"]);
    await sleep(100);
    llm.enqueue({ text: "好" });
    ask("/summary 200", { from: BOB, mention: false });
    await expectReply("好", 3_000);
    expect(llm.requests[0]!.promptText).toContain("共 2 条");
    expect(llm.requests[0]!.promptText).not.toContain("甲");
  });
});
