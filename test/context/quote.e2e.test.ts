import { afterEach, describe, expect, it } from "vitest";
import { oneBotFixture } from "../adapters/notice-fixtures.ts";
import type { BotHarness } from "../support/bot-harness.ts";
import { ALICE, GROUP, SELF } from "../support/messages.ts";
import type { OneBotStandIn, WireSegment } from "../support/onebot-standin.ts";
import { type Scene, startScene } from "../support/scene.ts";
import type { ScriptedLlmServer } from "../support/scripted-llm-server.ts";

/** Unix seconds of 2024-06-01 at this wall-clock time in Shanghai. */
const at = (hh: number, mm: number, ss: number) => Date.UTC(2024, 5, 1, hh - 8, mm, ss) / 1000;

const text = (value: string) => ({ type: "text", data: { text: value } });
const mention = { type: "at", data: { qq: SELF } };
const replyTo = (id: string) => ({ type: "reply", data: { id } });
const forward = (id: string) => ({ type: "forward", data: { id } });
const REPLY = [{ toolCalls: [{ name: "reply", arguments: {} }] }, { text: "好的" }];

let llm: ScriptedLlmServer;
let bot: BotHarness;
let scene: Scene | undefined;
let qq: OneBotStandIn;

async function start(config: Record<string, unknown> = {}): Promise<void> {
  scene = await startScene({ config: { chat: { timezone: "Asia/Shanghai", ...config } } });
  ({ llm, bot, qq } = scene);
}

afterEach(async () => {
  await scene?.close();
  scene = undefined;
});

/** Pushes the message 张三 wrote earlier (plain chatter, stored by the stand-in for get_msg). */
function zhangSan(message: WireSegment[]): string {
  return qq.pushGroupMessage({
    groupId: GROUP,
    userId: "10001",
    nickname: "zhangsan",
    card: "张三",
    message,
    time: at(9, 59, 59),
  });
}

describe("quote and forward resolution end to end", () => {
  it("shows the quoted message and its expanded forward tree before the new messages", async () => {
    await start();
    qq.setForward("F", {
      messages: [
        {
          message_id: 1,
          time: at(10, 0, 5),
          sender: { user_id: 10002, nickname: "李四", card: "" },
          message: [text("北京今天晴，最高温度 28 度"), forward("G")],
        },
      ],
    });
    qq.setForward("G", {
      message: [
        {
          type: "node",
          data: { user_id: "10003", nickname: "王五", time: at(10, 0, 10), content: "记得防晒" },
        },
      ],
    });
    const quoted = zhangSan([text("今天天气怎么样"), forward("F")]);
    llm.enqueue(...REPLY);
    qq.pushGroupMessage({
      groupId: GROUP,
      userId: ALICE,
      nickname: "Alice",
      message: [replyTo(quoted), mention, text(" 问一下上海的天气呢")],
    });
    const sent = await qq.waitForSent(undefined, 5_000);
    expect(sent.text).toBe("好的");

    const block = [
      "[引用 张三(10001) 于 09:59:59 的消息：今天天气怎么样[合并转发]",
      "  - 李四(10002) 10:00:05：北京今天晴，最高温度 28 度[合并转发]",
      "    - 王五(10003) 10:00:10：记得防晒",
      "]",
    ].join("\n");
    const planner = llm.lastRequestWithTool("reply")!.promptText;
    expect(planner).toContain(`## 新消息\n${block}\n[msg_id=`);
    expect(planner).toMatch(/\] Alice\(30001\): 问一下上海的天气呢/);
    expect(llm.lastRequestWithoutTool("reply")!.promptText).toContain(block);

    const getMsg = qq.actions.find((a) => a.action === "get_msg")!;
    expect(getMsg.params).toEqual({ message_id: Number(quoted) });
    const forwards = qq.actions.filter((a) => a.action === "get_forward_msg").map((a) => a.params);
    expect(forwards).toEqual([
      { id: "F", message_id: "F" },
      { id: "G", message_id: "G" },
    ]);
  });

  it("keeps a 19-digit forward id exact and reads a json multimsg card", async () => {
    await start();
    const bigId = "7412345678901234567";
    qq.setForward(bigId, { messages: [{ content: "大数字", sender: { user_id: 1, nickname: "甲" } }] });
    qq.setForward("RESID-1", {
      messages: [{ content: [text("卡片里的话")], sender: { user_id: 2, nickname: "乙" } }],
    });
    llm.enqueue(...REPLY);
    const card = JSON.stringify({ app: "com.tencent.multimsg", meta: { detail: { resid: "RESID-1" } } });
    // NapCat sends its forward ids as bare JSON numbers beyond 2^53.
    qq.pushRaw(
      `{"time":${Math.floor(Date.now() / 1000)},"self_id":${SELF},"post_type":"message","message_type":"group",` +
        `"sub_type":"normal","group_id":${GROUP},"user_id":${ALICE},"message_id":4242,` +
        `"sender":{"user_id":${ALICE},"nickname":"Alice"},` +
        `"message":[{"type":"at","data":{"qq":"${SELF}"}},{"type":"forward","data":{"id":${bigId}}},` +
        `{"type":"json","data":{"data":${JSON.stringify(card)}}}],"raw_message":"","font":0}`,
    );
    await qq.waitForSent(undefined, 5_000);
    const planner = llm.lastRequestWithTool("reply")!.promptText;
    expect(planner).toContain("[引用消息：\n  - 甲(1)：大数字\n  - 乙(2)：卡片里的话\n]");
    const ids = qq.actions.filter((a) => a.action === "get_forward_msg").map((a) => a.params.id);
    expect(ids).toEqual([bigId, "RESID-1"]);
  });

  it("resolves only the last quoting message of a burst", async () => {
    await start({ realtime: { windowMs: 150, maxWindowMs: 1_000 } });
    const first = zhangSan([text("第一条")]);
    const second = zhangSan([text("第二条")]);
    llm.enqueue(...REPLY);
    qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: [replyTo(first), mention, text(" 这个")] });
    qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: [replyTo(second), text("还有这个")] });
    await qq.waitForSent(undefined, 5_000);
    expect(qq.actions.filter((a) => a.action === "get_msg").map((a) => String(a.params.message_id))).toEqual([
      second,
    ]);
    expect(llm.lastRequestWithTool("reply")!.promptText).toContain("的消息：第二条\n]");
  });

  it("shows [引用消息获取失败] when get_msg fails, and still answers", async () => {
    await start();
    // NapCat's answer to get_msg for a message it no longer has.
    const miss = oneBotFixture("napcat/answer-get-msg-miss").frame as { retcode: number; message: string };
    qq.failNext("get_msg", { retcode: miss.retcode, message: miss.message });
    llm.enqueue(...REPLY);
    qq.pushGroupMessage({
      groupId: GROUP,
      userId: ALICE,
      message: [replyTo("999"), mention, text(" 这是啥")],
    });
    await qq.waitForSent(undefined, 5_000);
    expect(llm.lastRequestWithTool("reply")!.promptText).toContain(
      "## 新消息\n[引用消息：[引用消息获取失败]\n]\n",
    );
    // An expected miss (the implementation answered it has no such message): one debug line, no stack.
    const lines = bot.logs.filter((l) => l.msg.includes("get_msg"));
    expect(lines).toEqual([
      expect.objectContaining({ level: 20, msg: "quoted message not found (get_msg)" }),
    ]);
    expect(lines[0]!.err).toBeUndefined();
    expect(String(lines[0]!.problem)).toContain(miss.message);
  });

  it("gives up on a get_msg slower than quote.timeoutMs", async () => {
    await start({ quote: { timeoutMs: 100 } });
    const quoted = zhangSan([text("慢")]);
    qq.delay("get_msg", 2_000);
    llm.enqueue(...REPLY);
    const pushedAt = Date.now();
    qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: [replyTo(quoted), mention, text(" ?")] });
    await qq.waitForSent(undefined, 5_000);
    expect(Date.now() - pushedAt).toBeLessThan(1_500);
    expect(llm.lastRequestWithTool("reply")!.promptText).toContain("[引用消息：[引用消息获取失败]\n]");
  });

  it("fetches nothing with quote.enabled false and still leaves the reply out of the text", async () => {
    await start({ quote: { enabled: false } });
    const quoted = zhangSan([text("不该出现")]);
    llm.enqueue(...REPLY);
    qq.pushGroupMessage({
      groupId: GROUP,
      userId: ALICE,
      message: [replyTo(quoted), mention, text(" 看看")],
    });
    await qq.waitForSent(undefined, 5_000);
    const planner = llm.lastRequestWithTool("reply")!.promptText;
    expect(qq.actions.map((a) => a.action)).not.toContain("get_msg");
    expect(planner).not.toContain("[引用");
    expect(planner).toMatch(/\[msg_id=\d+\] \[[\d:]+\] user30001\(30001\): 看看/);
  });
});

describe("names in the transcript", () => {
  it("shows a mentioned member by the name they went by in the chat, without asking the platform", async () => {
    await start();
    zhangSan([text("我是张三")]);
    llm.enqueue(...REPLY);
    qq.pushGroupMessage({
      groupId: GROUP,
      userId: ALICE,
      message: [mention, text(" 你认识 "), { type: "at", data: { qq: "10001" } }, text(" 吗")],
    });
    await qq.waitForSent(undefined, 5_000);
    expect(llm.lastRequestWithTool("reply")!.promptText).toContain("你认识 @张三 吗");
    expect(qq.actions.map((a) => a.action)).not.toContain("get_group_member_info");
  });
});
