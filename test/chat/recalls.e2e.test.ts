import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { frameAbout } from "../adapters/notice-fixtures.ts";
import { type BotHarness, storedRows } from "../support/bot-harness.ts";
import { ALICE, BOB, GROUP, mention, plain } from "../support/messages.ts";
import type { OneBotStandIn } from "../support/onebot-standin.ts";
import { type Scene, startScene } from "../support/scene.ts";
import type { ScriptedLlmServer } from "../support/scripted-llm-server.ts";
import { sleep, waitFor } from "../support/wait.ts";

const SECRET = "我的手机号是13800138000（发错了）";
const NUMBER = "13800138000";

/**
 * Recalls (撤回) as NapCat and go-cqhttp report them (fixtures follow
 * NapCatQQ packages/napcat-onebot/event/notice/OB11GroupRecallNoticeEvent.ts and
 * OB11FriendRecallNoticeEvent.ts, go-cqhttp coolq/event.go groupRecallEvent).
 */
describe("a recalled message", () => {
  let llm: ScriptedLlmServer;
  let bot: BotHarness;
  let qq: OneBotStandIn;
  let scene: Scene;

  beforeEach(async () => {
    scene = await startScene();
    ({ llm, bot, qq } = scene);
  });

  afterEach(() => scene.close());

  /** Pushes the fixture's group_recall for `messageId` and waits until the bot has marked it. */
  async function recallInGroup(messageId: string, fixture = "napcat/notice-group-recall"): Promise<void> {
    qq.pushEvent(frameAbout(fixture, { message_id: messageId, group_id: GROUP, user_id: ALICE }));
    await bot.waitForLog((line) => line.msg === "message recalled" && line.messageId === messageId);
  }

  it("is never shown to the planner again, only as [已撤回], and stays stored for the console", async () => {
    const secretId = qq.pushGroupMessage({
      groupId: GROUP,
      userId: ALICE,
      nickname: "Alice",
      message: plain(SECRET),
    });
    await bot.waitForLog((line) => line.msg === "message received" && line.messageId === secretId);
    await recallInGroup(secretId);

    llm.enqueue({ toolCalls: [{ name: "no_reply", arguments: { reason: "ok" } }] });
    qq.pushGroupMessage({
      groupId: GROUP,
      userId: BOB,
      nickname: "Bob",
      message: mention("刚才那条是什么？"),
    });
    await bot.turnFinished();
    const planner = llm.lastRequestWithTool("reply")!;
    expect(planner.promptText).not.toContain(NUMBER);
    expect(planner.promptText).toContain(`[msg_id=${secretId}]`);
    expect(planner.promptText).toMatch(/Alice\(30001\): \[已撤回\]/);

    const rows = await storedRows<{ segments: string; recalled_at: number | string | null }>(
      bot.dataDir,
      `SELECT segments, recalled_at FROM messages WHERE message_id = '${secretId}'`,
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.segments).toContain(NUMBER);
    expect(rows[0]!.recalled_at).not.toBeNull();
  });

  it("shown in a quote as [已撤回], even when the implementation still answers get_msg with it", async () => {
    const secretId = qq.pushGroupMessage({
      groupId: GROUP,
      userId: ALICE,
      nickname: "Alice",
      message: plain(SECRET),
    });
    await bot.waitForLog((line) => line.msg === "message received" && line.messageId === secretId);
    await recallInGroup(secretId, "go-cqhttp/notice-group-recall");

    llm.enqueue({ toolCalls: [{ name: "no_reply", arguments: { reason: "ok" } }] });
    qq.pushGroupMessage({
      groupId: GROUP,
      userId: BOB,
      message: [{ type: "reply", data: { id: secretId } }, ...mention("这条什么意思")],
    });
    await bot.turnFinished();
    const planner = llm.lastRequestWithTool("reply")!;
    expect(planner.promptText).not.toContain(NUMBER);
    expect(planner.promptText).toContain("[已撤回]");
    expect(qq.actions.filter((action) => action.action === "get_msg")).toEqual([]);
  });

  it("stops a turn whose only trigger it was while the model is slow: nothing is sent", async () => {
    llm.enqueue(
      { toolCalls: [{ name: "reply", arguments: {} }], delayMs: 1_500 },
      { text: "你的手机号是13800138000对吧" },
    );
    const id = qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: mention(SECRET) });
    await waitFor(() => llm.requests.length === 1, 5_000);
    await recallInGroup(id);
    const finished = await bot.turnFinished(1, 8_000);
    expect(finished.data.status).toBe("silent");
    expect(String(finished.data.reason)).toContain("recalled");
    await sleep(300);
    expect(qq.sent).toEqual([]);
    expect(llm.requests).toHaveLength(1);
  });

  it("is left out of a running turn that has other triggers, which plans again and answers those", async () => {
    llm.enqueue(
      { toolCalls: [{ name: "reply", arguments: {} }], delayMs: 1_500 },
      { toolCalls: [{ name: "reply", arguments: {} }] },
      { text: "好的" },
    );
    const secretId = qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: mention(SECRET) });
    const otherId = qq.pushGroupMessage({ groupId: GROUP, userId: BOB, message: mention("明天几点集合？") });
    await waitFor(() => llm.requests.length === 1, 5_000);
    expect(llm.requests[0]!.promptText).toContain(NUMBER);
    await recallInGroup(secretId);
    const sent = await qq.waitForSent(undefined, 8_000);
    expect(sent.text).toBe("好的");
    const replanned = llm.requests[1]!;
    expect(replanned.promptText).not.toContain(NUMBER);
    expect(replanned.promptText).toContain("明天几点集合");
    expect(llm.lastRequestWithoutTool("reply")!.promptText).not.toContain(NUMBER);
    expect(otherId).not.toBe(secretId);
  });

  it("is not started as a turn when recalled while its batch waits", async () => {
    llm.enqueue({ toolCalls: [{ name: "reply", arguments: {} }] }, { text: "第一个的回答", delayMs: 800 });
    qq.pushGroupMessage({ groupId: GROUP, userId: BOB, message: mention("第一个") });
    await waitFor(() => llm.requests.length === 2, 5_000);
    const waitingId = qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: mention(SECRET) });
    await bot.waitForLog((line) => line.msg === "message received" && line.messageId === waitingId);
    await recallInGroup(waitingId);
    await bot.waitForLog(
      (line) => line.msg === "turn not started: the messages that started it were recalled",
    );
    expect(llm.requests).toHaveLength(2);
    expect(qq.sent.map((sent) => sent.text)).toEqual(["第一个的回答"]);
  });

  it("is not taken into a running turn when recalled while it waited for the planner", async () => {
    llm.enqueue({ toolCalls: [{ name: "no_reply", arguments: { reason: "first" } }], delayMs: 800 });
    qq.pushGroupMessage({ groupId: GROUP, userId: BOB, message: mention("第一个") });
    await waitFor(() => llm.requests.length === 1, 5_000);
    const waitingId = qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: mention(SECRET) });
    await bot.waitForLog((line) => line.msg === "message received" && line.messageId === waitingId);
    await recallInGroup(waitingId);
    const finished = await bot.turnFinished(1, 5_000);
    expect(finished.data.reason).toBe("no_reply: first");
    await sleep(300);
    expect(llm.requests).toHaveLength(1);
    expect(qq.sent).toEqual([]);
  });

  it("is never a reply target: the planner is told it was recalled", async () => {
    const secretId = qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: plain(SECRET) });
    await bot.waitForLog((line) => line.msg === "message received" && line.messageId === secretId);
    await recallInGroup(secretId);
    llm.enqueue(
      { toolCalls: [{ name: "reply", arguments: { msg_id: secretId, set_quote: true } }] },
      { toolCalls: [{ name: "no_reply", arguments: { reason: "撤回了" } }] },
    );
    qq.pushGroupMessage({ groupId: GROUP, userId: BOB, message: mention("回一下她") });
    await bot.turnFinished();
    expect(qq.sent).toEqual([]);
    const toolResult = JSON.stringify(llm.requests[1]!.body.messages);
    expect(toolResult).toContain("was recalled");
  });

  it("in a private chat (friend_recall) is shown as [已撤回]", async () => {
    const secretId = qq.pushPrivateMessage({ userId: ALICE, nickname: "Alice", message: plain(SECRET) });
    llm.enqueue({ toolCalls: [{ name: "no_reply", arguments: { reason: "ok" } }] });
    await bot.turnFinished();
    qq.pushEvent(frameAbout("napcat/notice-friend-recall", { message_id: secretId, user_id: ALICE }));
    await bot.waitForLog((line) => line.msg === "message recalled" && line.messageId === secretId);
    llm.enqueue({ toolCalls: [{ name: "no_reply", arguments: { reason: "ok" } }] });
    qq.pushPrivateMessage({ userId: ALICE, nickname: "Alice", message: plain("没事") });
    await bot.turnFinished(2);
    const planner = llm.lastRequestWithTool("reply")!;
    expect(planner.promptText).not.toContain(NUMBER);
    expect(planner.promptText).toContain("[已撤回]");
  });
});
