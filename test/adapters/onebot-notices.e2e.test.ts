import { afterEach, describe, expect, it } from "vitest";
import { storedRows } from "../support/bot-harness.ts";
import { ALICE, BOB, GROUP, mention, plain, SELF } from "../support/messages.ts";
import { type Scene, startScene } from "../support/scene.ts";
import { sleep, waitFor } from "../support/wait.ts";
import { frameAbout, oneBotFixture } from "./notice-fixtures.ts";

/**
 * Notices as NapCat and go-cqhttp send them (each fixture names its source file): pokes
 * (NapCatQQ event/notice/OB11PokeEvent.ts, go-cqhttp coolq/event.go), NapCat's bot_offline
 * (event/notice/BotOfflineEvent.ts) and a send NapCat answered failed (action/OneBotAction.ts).
 */
describe("OneBot notices through the real bot", () => {
  let scene: Scene;

  afterEach(() => scene.close());

  it("a NapCat group poke of the bot triggers a turn showing 'Alice 戳了戳你'; the poke tool pokes back with group_poke", async () => {
    scene = await startScene();
    const { llm, bot, qq } = scene;
    const said = qq.pushGroupMessage({
      groupId: GROUP,
      userId: ALICE,
      nickname: "Alice",
      message: plain("在吗"),
    });
    await bot.waitForLog((line) => line.msg === "message received" && line.messageId === said);
    llm.enqueue(
      { toolCalls: [{ name: "poke", arguments: {} }] },
      { toolCalls: [{ name: "no_reply", arguments: { reason: "戳回去了" } }] },
    );
    qq.pushEvent(
      frameAbout("napcat/notice-group-poke", { group_id: GROUP, user_id: ALICE, target_id: SELF }),
    );
    const finished = await bot.turnFinished();
    expect(finished.data.status).toBe("silent");
    const planner = llm.requestsWithTool("reply")[0]!;
    expect(planner.toolNames).toContain("poke");
    expect(planner.promptText).toMatch(/Alice\(30001\) 戳了戳你/);
    const poke = await qq.waitForAction("group_poke");
    expect(poke.params).toEqual({ group_id: Number(GROUP), user_id: Number(ALICE) });
    expect(JSON.stringify(llm.requests[1]!.body.messages)).toContain("Alice");
  });

  it("a go-cqhttp private poke triggers; friend_poke refused, the poke goes out as send_poke", async () => {
    scene = await startScene();
    const { llm, bot, qq } = scene;
    qq.failNext("friend_poke", { retcode: 1404, message: "API不存在" });
    llm.enqueue(
      { toolCalls: [{ name: "poke", arguments: {} }] },
      { toolCalls: [{ name: "no_reply", arguments: { reason: "ok" } }] },
    );
    qq.pushEvent(
      frameAbout("go-cqhttp/notice-friend-poke", { user_id: ALICE, sender_id: ALICE, target_id: SELF }),
    );
    await bot.turnFinished();
    expect(llm.requests[0]!.promptText).toContain("30001(30001) 戳了戳你");
    const poke = await qq.waitForAction("send_poke");
    expect(poke.params).toEqual({ user_id: Number(ALICE) });
  });

  it("a poke of someone else triggers nothing but shows in the next prompt's history", async () => {
    scene = await startScene();
    const { llm, bot, qq } = scene;
    qq.pushEvent(
      frameAbout("go-cqhttp/notice-group-poke", {
        group_id: GROUP,
        user_id: ALICE,
        sender_id: ALICE,
        target_id: BOB,
      }),
    );
    await bot.waitForLog((line) => line.msg === "message received" && line.trigger === "none");
    await sleep(300);
    expect(llm.requests).toEqual([]);
    llm.enqueue({ toolCalls: [{ name: "no_reply", arguments: { reason: "ok" } }] });
    qq.pushGroupMessage({ groupId: GROUP, userId: BOB, message: mention("嗯？") });
    await bot.turnFinished();
    expect(llm.requests[0]!.promptText).toContain(`戳了戳 ${BOB}`);
    expect(llm.requests[0]!.toolNames).not.toContain("poke");
  });

  it("with chat.triggers.poke off a poke of the bot starts no turn", async () => {
    scene = await startScene({ config: { chat: { triggers: { poke: false } } } });
    const { llm, bot, qq } = scene;
    qq.pushEvent(
      frameAbout("napcat/notice-group-poke", { group_id: GROUP, user_id: ALICE, target_id: SELF }),
    );
    await bot.waitForLog((line) => line.msg === "message received" && line.trigger === "none");
    await sleep(300);
    expect(llm.requests).toEqual([]);
  });

  it("NapCat's bot_offline sets the account offline in /healthz at once", async () => {
    scene = await startScene();
    const { bot, qq } = scene;
    qq.heartbeat(true);
    await bot.waitForLog((line) => line.msg === "onebot account online");
    qq.pushEvent(frameAbout("napcat/notice-bot-offline", { user_id: SELF }));
    await bot.waitForLog((line) => line.msg === "onebot account offline (bot_offline)");
    const health = (await (await fetch(`${bot.baseUrl}/healthz`)).json()) as {
      adapters: Array<Record<string, unknown>>;
    };
    expect(health.adapters).toEqual([expect.objectContaining({ connected: true, online: false })]);
  });

  it("notice debug lines carry sub_type", async () => {
    scene = await startScene();
    const { bot, qq } = scene;
    qq.pushEvent({
      post_type: "notice",
      notice_type: "notify",
      sub_type: "lucky_king",
      group_id: 20000,
      user_id: 30001,
    });
    const line = await bot.waitForLog((entry) => entry.msg === "onebot notice ignored");
    expect(line).toMatchObject({ type: "notify", subType: "lucky_king" });
  });

  it("a send NapCat answered failed is reported and journalled as not sent", async () => {
    scene = await startScene();
    const { llm, bot, qq } = scene;
    const { frame } = oneBotFixture("napcat/answer-send-failed");
    qq.failNext("send_group_msg", {
      retcode: frame.retcode as number,
      message: frame.message as string,
      wording: frame.wording as string,
    });
    llm.enqueue({ toolCalls: [{ name: "reply", arguments: {} }] }, { text: "好的" });
    qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: mention("你好") });
    const finished = await bot.turnFinished();
    expect(finished.data.status).toBe("failed");
    expect(String(finished.data.reason)).toContain("not sent");
    expect(String(finished.data.reason)).not.toContain("may have gone out");
    // The journal settles a send in the background once it has ended.
    const states = async () =>
      (
        await storedRows<{ state: string }>(
          bot.dataDir,
          `SELECT state FROM sends WHERE reply_id = '${finished.replyId}'`,
        )
      ).map((send) => send.state);
    await waitFor(async () => !(await states()).includes("pending"));
    expect(await states()).toEqual(["failed"]);
  });
});
