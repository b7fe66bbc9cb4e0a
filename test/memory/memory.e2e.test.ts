import { afterEach, describe, expect, it, vi } from "vitest";
import { type BotHarness, startBot, storedRows } from "../support/bot-harness.ts";
import { GROUP, mention, OTHER_GROUP, plain, SELF } from "../support/messages.ts";
import { OneBotStandIn } from "../support/onebot-standin.ts";
import { type RecordedLlmRequest, ScriptedLlmServer } from "../support/scripted-llm-server.ts";

const ZHANG = "30011";
const LI = "30012";
const DAY_MS = 24 * 60 * 60 * 1000;

/** A memory model, learning every 3 messages of a chat. */
const LEARNING = {
  llm: { models: { memory: ["main/scripted-model"] } },
  memory: { learnEvery: 3 },
};

const REPLY = { toolCalls: [{ name: "reply", arguments: {} }] };
const NO_REPLY = { toolCalls: [{ name: "no_reply", arguments: { reason: "没什么要说的" } }] };

/** The memory model's answer: these operations as the JSON `memory_learn` asks for, in a code fence. */
const learned = (...memories: Array<Record<string, unknown>>) => ({
  text: `好的：\n\`\`\`json\n${JSON.stringify({ memories })}\n\`\`\``,
});

interface Scene {
  llm: ScriptedLlmServer;
  bot: BotHarness;
  qq: OneBotStandIn;
}

const open: Scene[] = [];

async function scene(
  config: Record<string, unknown>,
  dataDir?: string,
  embed?: (text: string) => number[],
): Promise<Scene> {
  const llm = await ScriptedLlmServer.start(embed ? { embed } : {});
  const bot = await startBot({ llm, config, ...(dataDir === undefined ? {} : { dataDir }) });
  const qq = new OneBotStandIn({ selfId: SELF });
  await qq.connectReverse(bot.wsUrl);
  const opened = { llm, bot, qq };
  open.push(opened);
  return opened;
}

/** Stops a scene's bot (its data folder stays, for a restart) and its peers. */
async function stop(s: Scene): Promise<void> {
  open.splice(open.indexOf(s), 1);
  await s.qq.close();
  await s.bot.stop();
  await s.llm.close();
}

afterEach(async () => {
  vi.useRealTimers();
  for (const s of open.splice(0)) {
    await s.qq.close();
    await s.bot.dispose();
    await s.llm.close();
  }
});

function say(qq: OneBotStandIn, group: string, userId: string, card: string, text: string): string {
  return qq.pushGroupMessage({ groupId: group, userId, card, message: plain(text) });
}

function ask(qq: OneBotStandIn, group: string, userId: string, card: string, text: string): string {
  return qq.pushGroupMessage({ groupId: group, userId, card, message: mention(text) });
}

/** The memories the bot's database holds, oldest first. */
function storedMemories(
  dataDir: string,
): Promise<Array<{ id: number; subject: string; content: string; confirmations: number }>> {
  return storedRows(dataDir, "SELECT id, subject, content, confirmations FROM memories ORDER BY id");
}

/** The memory section of a request, or "" without one. */
function memorySection(request: RecordedLlmRequest | undefined): string {
  const text = request?.promptText ?? "";
  const start = text.indexOf("## 你记得的事");
  return start === -1
    ? ""
    : text.slice(start, text.indexOf("\n\n", start) === -1 ? undefined : text.indexOf("\n\n", start));
}

describe("long-term memory", () => {
  it("learns a plan told in one group, recalls it in another after a restart a day later, and forgets it on /forget", async () => {
    const first = await scene(LEARNING);
    const { dataDir } = first.bot;
    // The memory model reads the stretch once learnEvery (3) messages are stored.
    first.llm.enqueue((request) => {
      expect(request.toolNames).toEqual([]);
      expect(request.promptText).toContain("我下周二要去成都出差");
      return learned({ op: "add", about: ZHANG, content: "下周二要去成都出差" });
    });
    const told = say(first.qq, GROUP, ZHANG, "张三", "我下周二要去成都出差");
    say(first.qq, GROUP, LI, "李四", "哇，出差辛苦");
    const more = say(first.qq, GROUP, ZHANG, "张三", "还好，就三天");
    const pass = await first.bot.waitForEvent("memory.learned");
    expect(pass.data).toMatchObject({
      origin: "learned",
      added: [{ subject: `person:onebot:${ZHANG}`, subjectName: "张三", content: "下周二要去成都出差" }],
      messages: 3,
    });
    await stop(first);

    // A day later, restarted, in another group.
    vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true });
    vi.setSystemTime(Date.now() + DAY_MS);
    const second = await scene({}, dataDir);
    second.llm.enqueue(REPLY, { text: "你下周二要去成都出差呀" });
    ask(second.qq, OTHER_GROUP, ZHANG, "张三", "我下周去哪");
    const sent = await second.qq.waitForSent((s) => s.groupId === OTHER_GROUP, 5_000);
    expect(sent.text).toContain("成都");
    const planner = second.llm.lastRequestWithTool("reply");
    expect(memorySection(planner)).toContain(`张三(${ZHANG})：下周二要去成都出差`);
    // The replyer, who writes the text, reads the same memories.
    expect(memorySection(second.llm.lastRequestWithoutTool("reply"))).toContain("下周二要去成都出差");
    expect(planner?.toolNames).toEqual(expect.arrayContaining(["remember", "recall"]));
    const recalled = await second.bot.waitForEvent("memory.recalled");
    expect(recalled.data).toMatchObject({ entries: [{ content: "下周二要去成都出差" }] });

    await second.bot.turnFinished(1);
    const consoleList = () => fetch(`${second.bot.baseUrl}/api/memory?subject=person:onebot:${ZHANG}`);
    expect(await (await consoleList()).json()).toMatchObject({
      memories: [
        {
          content: "下周二要去成都出差",
          // No source_ids named: every message of 张三 in the stretch, none of 李四's.
          sources: [{ messageId: told }, { messageId: more }],
        },
      ],
    });
    second.qq.pushGroupMessage({
      groupId: OTHER_GROUP,
      userId: ZHANG,
      card: "张三",
      message: plain("/忘记"),
    });
    const forgot = await second.qq.waitForSent((s) => s.text.includes("忘掉"), 5_000);
    expect(forgot.text).toContain("1 条");
    expect(await storedMemories(dataDir)).toEqual([]);
    // Gone from the console too.
    expect(await (await consoleList()).json()).toMatchObject({ memories: [] });

    second.llm.enqueue(REPLY, { text: "我不记得啦" });
    ask(second.qq, OTHER_GROUP, ZHANG, "张三", "我下周去哪");
    await second.qq.waitForSent((s) => s.text === "我不记得啦", 5_000);
    expect(memorySection(second.llm.lastRequestWithTool("reply"))).toBe("");
  });

  it("remembers through the planner's remember tool, merges the same fact told again, and /memory shows it", async () => {
    const s = await scene({});
    s.llm.enqueue(
      { toolCalls: [{ name: "remember", arguments: { content: "喜欢吃火锅，尤其是麻辣锅底" } }] },
      (request) => {
        expect(request.promptText).toMatch(/已记住（#\d+）/);
        return REPLY;
      },
      { text: "记住啦" },
    );
    ask(s.qq, GROUP, ZHANG, "张三", "记住，我最喜欢吃火锅了，尤其是麻辣锅底");
    await s.qq.waitForSent((sent) => sent.text === "记住啦", 5_000);
    const added = await s.bot.waitForEvent("memory.learned");
    expect(added.data).toMatchObject({ origin: "tool", added: [{ content: "喜欢吃火锅，尤其是麻辣锅底" }] });

    // The same fact in other words: confirmed and reworded, not a second memory.
    s.llm.enqueue(
      { toolCalls: [{ name: "remember", arguments: { content: "喜欢吃火锅，尤其是麻辣的锅底" } }] },
      REPLY,
      { text: "知道啦" },
    );
    ask(s.qq, OTHER_GROUP, ZHANG, "张三", "再说一次，我喜欢麻辣火锅");
    await s.qq.waitForSent((sent) => sent.text === "知道啦", 5_000);
    expect(await storedMemories(s.bot.dataDir)).toEqual([
      expect.objectContaining({ content: "喜欢吃火锅，尤其是麻辣的锅底", confirmations: 2 }),
    ]);

    s.qq.pushGroupMessage({ groupId: GROUP, userId: ZHANG, card: "张三", message: plain("/记忆") });
    const shown = await s.qq.waitForSent((sent) => sent.text.startsWith("我记得关于你的事"), 5_000);
    expect(shown.text).toContain("喜欢吃火锅，尤其是麻辣的锅底");
    // Someone else has nothing remembered, and may not look at 张三's.
    s.qq.pushGroupMessage({ groupId: GROUP, userId: LI, card: "李四", message: plain(`/memory ${ZHANG}`) });
    expect((await s.qq.waitForSent((sent) => sent.text.includes("管理员"), 5_000)).text).toBe(
      "只有管理员可以查看别人的记忆。",
    );
  });

  it("applies the learner's updates and contradictions to what it was shown, and learns nothing from a denied member", async () => {
    const s = await scene({ ...LEARNING, access: { deny: [`user:${LI}`] } });
    s.llm.enqueue(learned({ op: "add", about: ZHANG, content: "下周二要去成都出差" }));
    say(s.qq, GROUP, ZHANG, "张三", "我下周二要去成都出差");
    say(s.qq, GROUP, ZHANG, "张三", "住在春熙路附近");
    say(s.qq, GROUP, ZHANG, "张三", "有推荐的馆子吗");
    await s.bot.waitForEvent("memory.learned");
    const [trip] = await storedMemories(s.bot.dataDir);

    // The denied member's messages are stored as history but never read by the learner.
    s.llm.enqueue((request) => {
      expect(request.promptText).toContain(`#${trip!.id}`);
      expect(request.promptText).not.toContain("李四的秘密");
      return learned(
        { op: "update", id: trip!.id, content: "出差改到重庆了，下周三出发" },
        { op: "add", about: LI, content: "不该被记住" },
        { op: "delete", id: 999_999, reason: "没见过的编号" },
      );
    });
    say(s.qq, GROUP, LI, "李四", "李四的秘密：我不想被记住");
    say(s.qq, GROUP, ZHANG, "张三", "计划有变，出差改去重庆了");
    say(s.qq, GROUP, ZHANG, "张三", "下周三出发");
    say(s.qq, GROUP, ZHANG, "张三", "唉");
    const update = await s.bot.waitForEvent(
      "memory.learned",
      (event) => (event.data as { updated: unknown[] }).updated.length > 0,
    );
    expect(update.data).toMatchObject({
      updated: [{ id: trip!.id, content: "出差改到重庆了，下周三出发", previous: "下周二要去成都出差" }],
      added: [],
      deleted: [],
    });
    expect(await storedMemories(s.bot.dataDir)).toEqual([
      expect.objectContaining({ id: trip!.id, content: "出差改到重庆了，下周三出发", confirmations: 2 }),
    ]);
  });

  it("forgets what was learned only from a message its sender recalled", async () => {
    const s = await scene(LEARNING);
    s.llm.enqueue(learned({ op: "add", about: ZHANG, content: "的生日是三月五日" }));
    const told = say(s.qq, GROUP, ZHANG, "张三", "我的生日是三月五日");
    say(s.qq, GROUP, LI, "李四", "记下了");
    say(s.qq, GROUP, LI, "李四", "到时候一起吃饭");
    await s.bot.waitForEvent("memory.learned");
    expect(await storedMemories(s.bot.dataDir)).toHaveLength(1);
    s.qq.pushEvent({
      post_type: "notice",
      notice_type: "group_recall",
      group_id: Number(GROUP),
      user_id: Number(ZHANG),
      operator_id: Number(ZHANG),
      message_id: Number(told),
    });
    const forgotten = await s.bot.waitForEvent("memory.forgotten");
    expect(forgotten.data).toMatchObject({ by: "recall" });
    expect(await storedMemories(s.bot.dataDir)).toEqual([]);
    // A message recalled before the learner read it stays stored as history, but is never learned from.
    s.llm.enqueue((request) => {
      expect(request.promptText).toContain("今天好冷");
      expect(request.promptText).not.toContain("手机号");
      return learned();
    });
    const secret = say(s.qq, GROUP, ZHANG, "张三", "我的手机号是 13800000000");
    s.qq.pushEvent({
      post_type: "notice",
      notice_type: "group_recall",
      group_id: Number(GROUP),
      user_id: Number(ZHANG),
      operator_id: Number(ZHANG),
      message_id: Number(secret),
    });
    // This recall's line: the first recall above logged one too.
    await s.bot.waitForLog((line) => line.msg === "onebot message recalled" && line.messageId === secret);
    say(s.qq, GROUP, LI, "李四", "今天好冷");
    say(s.qq, GROUP, LI, "李四", "多穿点");
    await s.bot.waitForEvent(
      "memory.learned",
      (event) => (event.data as { messages: number }).messages === 2,
    );
  });

  it("keeps to the recall budget and the daily learning bound, and survives a junk answer", async () => {
    const bounded = { ...LEARNING, memory: { learnEvery: 2, maxLearnCallsPerDay: 1, recallLimit: 1 } };
    const s = await scene(bounded);
    s.llm.enqueue({ text: "我觉得没什么要记的" });
    say(s.qq, GROUP, ZHANG, "张三", "今天天气真好");
    say(s.qq, GROUP, ZHANG, "张三", "适合出去玩");
    await s.bot.waitForLog(
      (line) => line.msg === "memory model answered something that is not the JSON asked for",
    );
    await s.bot.waitForEvent("memory.learned");
    // Today's one pass is used: two more messages start none.
    say(s.qq, GROUP, ZHANG, "张三", "我养了一只猫");
    say(s.qq, GROUP, ZHANG, "张三", "叫咪咪");
    await s.bot.waitForLog(
      (line) => line.msg === "memory learning skipped: the chat's passes for today are used up",
    );
    expect(s.llm.requests).toHaveLength(1);

    s.llm.enqueue(
      { toolCalls: [{ name: "remember", arguments: { content: "养了一只叫咪咪的猫" } }] },
      { toolCalls: [{ name: "remember", arguments: { content: "喜欢晴天出去玩" } }] },
      REPLY,
      { text: "好的" },
    );
    ask(s.qq, GROUP, ZHANG, "张三", "记住我的猫叫咪咪，我喜欢晴天出门");
    await s.qq.waitForSent((sent) => sent.text === "好的", 5_000);
    s.llm.enqueue(NO_REPLY);
    ask(s.qq, GROUP, ZHANG, "张三", "你还记得我的猫吗");
    await s.bot.turnFinished(2);
    const section = memorySection(s.llm.lastRequestWithTool("reply"));
    // recallLimit 1: only the best match for what was said.
    expect(section.split("\n").filter((line) => line.startsWith("- "))).toEqual([
      expect.stringContaining("养了一只叫咪咪的猫"),
    ]);

    // The day's bound is stored: a restart does not start it again.
    const { dataDir } = s.bot;
    await stop(s);
    const again = await scene(bounded, dataDir);
    say(again.qq, GROUP, ZHANG, "张三", "重启之后");
    say(again.qq, GROUP, ZHANG, "张三", "也不再学了");
    await again.bot.waitForLog(
      (line) => line.msg === "memory learning skipped: the chat's passes for today are used up",
    );
    expect(again.llm.requests).toHaveLength(0);
  });

  it("with an embedding model, recalls the fact closest in meaning even when it shares no words", async () => {
    // Pets on one axis, everything else on the other.
    const embed = (text: string) => (/布偶|宠物|猫/.test(text) ? [1, 0.1] : [0.1, 1]);
    const s = await scene(
      { llm: { models: { embedding: ["main/scripted-model"] } }, memory: { recallLimit: 1 } },
      undefined,
      embed,
    );
    s.llm.enqueue(
      { toolCalls: [{ name: "remember", arguments: { content: "家里养了一只布偶" } }] },
      { toolCalls: [{ name: "remember", arguments: { content: "在银行上班" } }] },
      { toolCalls: [{ name: "remember", arguments: { content: "周末喜欢爬山" } }] },
      NO_REPLY,
    );
    ask(s.qq, GROUP, ZHANG, "张三", "说说我吧");
    await s.bot.turnFinished(1);
    // Each memory's content was embedded when it was written.
    await vi.waitFor(() => expect(s.llm.embeddedTexts).toHaveLength(4));
    s.llm.enqueue(NO_REPLY);
    ask(s.qq, GROUP, ZHANG, "张三", "最近宠物不爱吃饭怎么办");
    await s.bot.turnFinished(2);
    expect(s.llm.embeddedTexts.at(-1)).toContain("最近宠物不爱吃饭怎么办");
    const lines = memorySection(s.llm.lastRequestWithTool("reply"))
      .split("\n")
      .filter((line) => line.startsWith("- "));
    expect(lines).toEqual([expect.stringContaining("家里养了一只布偶")]);
  });
});
