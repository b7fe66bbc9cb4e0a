/**
 * Joining conversations unasked and the governor, over the real wire: the whole bot, the
 * scripted model and the OneBot stand-in. "A model that always wants to talk" answers every
 * planner call with `reply` and every replyer call with a new sentence, so only the governor's
 * rules keep the bot within its caps.
 */
import { describe, expect, it } from "vitest";
import type { MonitorEvent } from "../../src/monitor/monitor.ts";
import { participationSchema } from "../../src/participation/config.ts";
import { frameAbout } from "../adapters/notice-fixtures.ts";
import type { BotHarness } from "../support/bot-harness.ts";
import { chatScenes } from "../support/chat-scene.ts";
import { ALICE, BOB, GROUP, OTHER_GROUP, plain, SELF } from "../support/messages.ts";
import type { OneBotStandIn } from "../support/onebot-standin.ts";
import { ScriptedLlmServer } from "../support/scripted-llm-server.ts";
import { sleep, waitFor } from "../support/wait.ts";

const ADMIN = "30009";

/** A model that always wants to talk: `reply` to every planner call, a new sentence from every replyer call. */
async function chattyModel(): Promise<ScriptedLlmServer> {
  let sentence = 0;
  return ScriptedLlmServer.start({
    whenEmpty: (request) =>
      request.toolNames.includes("reply")
        ? { toolCalls: [{ name: "reply", arguments: {} }] }
        : { text: `第${++sentence}句：${"天气地点人物事情".slice(sentence % 4)}${sentence * 7919}` },
  });
}

const decisions = (bot: BotHarness): MonitorEvent[] =>
  bot.events.filter((event) => event.type === "participation.decided");

/** Every decision that held the bot back by `rule`. */
const heldBy = (bot: BotHarness, rule: string) =>
  decisions(bot).filter((event) => event.data.joined === false && event.data.rule === rule);

/** Alice (or `from`) says `text` in the group without addressing the bot; waits until the bot has read it. */
async function chatter(qq: OneBotStandIn, bot: BotHarness, text: string, from = ALICE, group = GROUP) {
  const id = qq.pushGroupMessage({
    groupId: group,
    userId: from,
    nickname: `u${from}`,
    message: plain(text),
  });
  await bot.waitForLog((line) => line.msg === "message received" && line.messageId === id);
  return id;
}

/** Every turn started so far has finished. */
async function turnsSettled(bot: BotHarness): Promise<void> {
  await sleep(150);
  const started = bot.events.filter((event) => event.type === "turn.started").length;
  if (started > 0) await bot.turnFinished(started, 15_000);
}

describe("participation: joining conversations unasked", () => {
  const start = chatScenes();

  it("joins an active conversation it has something to say about, told it was not addressed", async () => {
    const { llm, bot, qq, expectReply } = await start({
      config: {
        bot: { interests: ["猫"] },
        chat: { participation: { talkValue: 0.5, settleMs: 0 } },
      },
    });
    await chatter(qq, bot, "今天好热啊", BOB);
    await chatter(qq, bot, "是啊，空调都不管用");
    llm.enqueue({ toolCalls: [{ name: "reply", arguments: {} }] }, { text: "我家橘猫整天趴在地板上" });
    await chatter(qq, bot, "你们家的猫怕热吗？", BOB);
    await expectReply("我家橘猫整天趴在地板上");
    const planner = llm.requestsWithTool("reply")[0]!;
    expect(planner.promptText).toContain("没有人在叫你");
    const joined = decisions(bot).filter((event) => event.data.joined === true);
    expect(joined).toHaveLength(1);
    expect(joined[0]!.data.score).toBeGreaterThanOrEqual(0.5);
    expect(joined[0]!.data.parts).toEqual(expect.arrayContaining(["interest", "question", "activity"]));
    // The earlier, plainer chatter scored below the threshold: on the timeline with its reason.
    expect(heldBy(bot, "score")).toHaveLength(2);
  });

  it("never speaks unasked with talkValue 0 (the default): as before, no model call and no decision", async () => {
    const llm = await chattyModel();
    const { bot, qq, expectNoReply } = await start({ llm, config: { bot: { interests: ["猫"] } } });
    await chatter(qq, bot, "今天好热啊", BOB);
    await chatter(qq, bot, "你们家的猫怕热吗？");
    await expectNoReply(600);
    expect(llm.requests).toEqual([]);
    expect(decisions(bot)).toEqual([]);
  });

  it("with a model that always wants to talk, keeps to the hourly cap and the gap between unasked messages", async () => {
    const llm = await chattyModel();
    const { bot, qq } = await start({
      llm,
      config: { chat: { participation: { talkValue: 1, minGapMs: 0, maxPerHour: 2, settleMs: 0 } } },
    });
    for (const text of ["一", "二", "三", "四"]) {
      await chatter(qq, bot, `聊到${text}`);
      await turnsSettled(bot);
    }
    expect(qq.sent).toHaveLength(2);
    expect(heldBy(bot, "hourly cap")).toHaveLength(2);
  });

  it("keeps minGapMs between two unasked messages in a chat", async () => {
    const llm = await chattyModel();
    const { bot, qq } = await start({
      llm,
      config: { chat: { participation: { talkValue: 1, minGapMs: 60_000, settleMs: 0 } } },
    });
    for (const text of ["一", "二", "三"]) {
      await chatter(qq, bot, `聊到${text}`);
      await turnsSettled(bot);
    }
    expect(qq.sent).toHaveLength(1);
    expect(heldBy(bot, "min gap")).toHaveLength(2);
  });

  it("adds nothing unasked past maxConsecutive bot messages with no person between", async () => {
    const llm = await ScriptedLlmServer.start();
    const { bot, qq, ask, expectReply, expectNoReply } = await start({
      llm,
      config: { chat: { participation: { talkValue: 1, maxConsecutive: 1, settleMs: 0 } } },
    });
    // Alice asks; while the bot is writing its answer, Bob chats; then the bot's answer leaves.
    llm.enqueue({ toolCalls: [{ name: "reply", arguments: {} }] }, { text: "答案在这", delayMs: 1_000 });
    ask("这题怎么做");
    // Once the replyer is writing (the planner has decided and will not read new messages).
    await waitFor(() => llm.requests.length === 2, 8_000, "the replyer's request");
    await chatter(qq, bot, "我也想知道", BOB);
    await expectReply("答案在这");
    // Bob's chatter would have made a turn of its own: the bot's answer came after it, so no.
    await expectNoReply(600);
    expect(heldBy(bot, "consecutive cap")).toHaveLength(1);
    expect(llm.requests).toHaveLength(2);
  });

  it("stays quiet after a member's quiet phrase and an admin's /quiet, still answering when addressed", async () => {
    const llm = await chattyModel();
    const { bot, qq, ask, expectReply, expectNoReply } = await start({
      llm,
      config: {
        bot: { admins: [ADMIN] },
        chat: { participation: { talkValue: 1, minGapMs: 0, maxPerHour: 100, settleMs: 0 } },
      },
    });
    await chatter(qq, bot, "你别说话了，安静点");
    await chatter(qq, bot, "继续聊我们的");
    await expectNoReply(600);
    expect(heldBy(bot, "quiet")).toHaveLength(2);
    ask("你还在吗");
    await expectReply(/^第1句/);

    ask("/quiet off", { from: ADMIN, mention: false });
    await expectReply("好的，我又可以主动说话了。");
    await chatter(qq, bot, "那我们聊聊周末");
    await expectReply(/^第2句/);

    ask("/quiet 5", { from: ADMIN, mention: false });
    await expectReply("好的，接下来 5 分钟我不主动说话，叫我时仍会回答。");
    await chatter(qq, bot, "周末去爬山吗");
    await expectNoReply(600);
    // A member cannot end it by command.
    ask("/quiet off", { mention: false });
    await expectReply("只有管理员可以使用这个命令。");
    await chatter(qq, bot, "去哪座山");
    await expectNoReply(600);
  });
});

describe("the governor against other bots", () => {
  const start = chatScenes();

  it("never takes a trigger or a chat moment from another bot in chat.otherBots", async () => {
    const llm = await chattyModel();
    const { bot, qq, ask, expectNoReply } = await start({
      llm,
      config: { chat: { otherBots: [BOB], participation: { talkValue: 1, settleMs: 0 } } },
    });
    ask("@紬 来聊天", { from: BOB });
    await chatter(qq, bot, "紬你在吗", BOB);
    await expectNoReply(600);
    expect(llm.requests).toEqual([]);
    expect(heldBy(bot, "other bot")).toHaveLength(2);
  });
});

describe("the ping-pong guard", () => {
  const start = chatScenes();
  const mentioning = (text: string) => [{ type: "at", data: { qq: SELF } }, ...plain(` ${text}`)];
  // The harness turns the guard off (tests answer faster than people); these run it as shipped.
  const shipped = participationSchema.properties.pingPongMs.default;
  const guardDefaults = { chat: { participation: { pingPongMs: shipped } } };
  const notAnswered = (bot: BotHarness) =>
    bot.logs.filter((line) => String(line.msg).startsWith("addressed message not answered"));

  /**
   * Another account answering each of the bot's messages after `delayMs(round)`, @-mentioning
   * it with `text(round)`; it stops after `rounds` answers.
   */
  function answerer(
    qq: OneBotStandIn,
    rounds: number,
    delayMs: (round: number) => number,
    text: (round: number) => string,
  ) {
    let round = 0;
    return qq.onSent(() => {
      if (round >= rounds) return;
      const current = round++;
      setTimeout(() => {
        qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: mentioning(text(current)) });
      }, delayMs(current));
    });
  }

  it("answers a person who answers within 1 to 3 seconds with varied words, ten rounds, with the defaults", async () => {
    const llm = await chattyModel();
    const { bot, qq } = await start({ llm, config: guardDefaults });
    const delays = [1_000, 1_400, 2_900, 1_100, 1_000, 2_200, 1_000, 2_600, 1_300, 1_800];
    const words = [
      "真的吗",
      "哈哈那你呢",
      "我刚吃完饭",
      "今天好冷",
      "你喜欢猫吗",
      "周末去哪",
      "刚下班",
      "这个好玩",
      "笑死",
      "晚安啦",
    ];
    const person = answerer(
      qq,
      10,
      (round) => delays[round]!,
      (round) => words[round]!,
    );
    qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: mentioning("在吗") });
    // The first question and each of the ten answers is answered.
    await waitFor(() => qq.sent.length >= 11, 60_000, "eleven replies");
    person();
    await turnsSettled(bot);
    expect(qq.sent.filter((sent) => sent.text.startsWith("第"))).toHaveLength(11);
    expect(notAnswered(bot)).toEqual([]);
    expect(qq.sent.map((sent) => sent.text)).not.toContain("我先歇一会儿，待会儿再聊～");
  }, 90_000);

  it("stops a bot answering at once with one template, tells it once, and logs each unanswered mention", async () => {
    const llm = await chattyModel();
    const { bot, qq } = await start({ llm, config: guardDefaults });
    const loop = answerer(
      qq,
      12,
      () => 150,
      (round) => `[自动回复] 您好，消息已收到，稍后回复您。${round % 2 ? "" : "~"}`,
    );
    qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: mentioning("开始") });
    await waitFor(() => notAnswered(bot).length >= 2, 20_000, "two unanswered mentions");
    await sleep(1_500);
    await turnsSettled(bot);
    loop();
    const texts = qq.sent.map((sent) => sent.text);
    // "开始" and the first two quick answers are answered; the third looks automated.
    expect(texts.filter((text) => text.startsWith("第"))).toHaveLength(3);
    expect(texts.filter((text) => text === "我先歇一会儿，待会儿再聊～")).toHaveLength(1);
    expect(notAnswered(bot).map((line) => line.rule)).toEqual([
      "ping-pong guard: near-identical answers",
      "ping-pong guard: near-identical answers",
    ]);
    expect(heldBy(bot, "ping-pong guard: near-identical answers").length).toBe(2);
  }, 40_000);

  it("stops a bot answering within a second with varied words after pingPongAddressedRounds rounds", async () => {
    const llm = await chattyModel();
    const { bot, qq } = await start({
      llm,
      config: { chat: { participation: { ...guardDefaults.chat.participation, restNotice: false } } },
    });
    const words = [
      "好的呀",
      "明天见",
      "Sure thing",
      "收到了老板",
      "为什么呢",
      "OK!",
      "下次一定",
      "无所谓啦",
      "真不错",
      "再说吧",
    ];
    const loop = answerer(
      qq,
      30,
      () => 100,
      (round) => words[round % words.length]!,
    );
    qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: mentioning("开始") });
    await waitFor(() => notAnswered(bot).length >= 1, 40_000, "an unanswered mention");
    await sleep(1_500);
    await turnsSettled(bot);
    loop();
    // "开始" and seven quick answers are answered; the eighth quick one is not, nor anything after.
    expect(qq.sent.map((sent) => sent.text)).toHaveLength(8);
    expect(notAnswered(bot).map((line) => line.rule)).toEqual(["ping-pong guard: bot-like cadence"]);
  }, 60_000);
});

describe("per-group settings", () => {
  const start = chatScenes();

  it("apply to their group alone: participation, persona and models", async () => {
    const llm = await chattyModel();
    const { bot, qq } = await start({
      llm,
      config: {
        llm: { models: { replyer: ["main/scripted-model"] } },
        chat: {
          groups: {
            [OTHER_GROUP]: {
              participation: { talkValue: 1, settleMs: 0 },
              persona: "你是一只爱说话的海盗鹦鹉。",
              models: { replyer: ["main/parrot-model"] },
            },
          },
        },
      },
    });
    await chatter(qq, bot, "今天吃什么", ALICE, GROUP);
    await turnsSettled(bot);
    expect(qq.sent).toEqual([]);
    expect(decisions(bot)).toEqual([]);

    await chatter(qq, bot, "今天吃什么", ALICE, OTHER_GROUP);
    await qq.waitForSent(() => true, 8_000);
    expect(qq.sent.map((sent) => sent.groupId)).toEqual([OTHER_GROUP]);
    const [planner, replyer] = llm.requests;
    expect(planner!.promptText).toContain("海盗鹦鹉");
    expect(planner!.body.model).toBe("scripted-model");
    expect(replyer!.body.model).toBe("parrot-model");

    // Addressed in the first group, the bot answers with the global persona and models.
    qq.pushGroupMessage({
      groupId: GROUP,
      userId: ALICE,
      message: [{ type: "at", data: { qq: SELF } }, ...plain(" 你好")],
    });
    await waitFor(() => qq.sent.length === 2, 8_000, "the answer in the first group");
    const [, , groupPlanner, groupReplyer] = llm.requests;
    expect(groupPlanner!.promptText).not.toContain("海盗鹦鹉");
    expect(groupReplyer!.body.model).toBe("scripted-model");
  });
});

describe("waiting for a member who is typing", () => {
  const start = chatScenes();

  it("holds an unasked message while NapCat says the member is typing, and sends it once they stop", async () => {
    const llm = await ScriptedLlmServer.start();
    const { bot, qq, expectReply } = await start({
      llm,
      config: {
        chat: {
          triggers: { privateAlways: false },
          participation: { talkValue: 1, settleMs: 0, maxWaitMs: 20_000 },
        },
      },
    });
    llm.enqueue({ toolCalls: [{ name: "reply", arguments: {} }] }, { text: "在看书", delayMs: 300 });
    qq.pushPrivateMessage({ userId: ALICE, message: plain("你在干嘛") });
    await bot.waitForEvent("turn.started");
    qq.pushEvent(frameAbout("napcat/notice-input-status", { user_id: ALICE, self_id: SELF }));
    // The reply is written by now (300 ms) and waits: nothing leaves while Alice types.
    await sleep(1_200);
    expect(qq.sent).toEqual([]);
    qq.pushEvent(
      frameAbout("napcat/notice-input-status", { user_id: ALICE, self_id: SELF, status_text: "" }),
    );
    await expectReply("在看书");
  });

  it("does not send it at all when the member is still typing after maxWaitMs", async () => {
    const llm = await ScriptedLlmServer.start();
    const { bot, qq, expectNoReply } = await start({
      llm,
      config: {
        chat: {
          triggers: { privateAlways: false },
          participation: { talkValue: 1, settleMs: 0, maxWaitMs: 500 },
        },
      },
    });
    llm.enqueue({ toolCalls: [{ name: "reply", arguments: {} }] }, { text: "在看书", delayMs: 300 });
    qq.pushPrivateMessage({ userId: ALICE, message: plain("你在干嘛") });
    await bot.waitForEvent("turn.started");
    qq.pushEvent(frameAbout("napcat/notice-input-status", { user_id: ALICE, self_id: SELF }));
    const finished = await bot.turnFinished(1, 10_000);
    expect(finished.data.reason).toBe("held back by the governor: chat busy");
    await expectNoReply(300);
    expect(heldBy(bot, "chat busy")).toHaveLength(1);
  });
});
