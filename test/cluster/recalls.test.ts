/**
 * Recalls (撤回) in a cluster: the notice reaches the instance holding the account's connection,
 * while the turn reading the message may run on the instance owning the session. The owner
 * must learn of it, as a single bot would.
 */
import { afterEach, describe, expect, it } from "vitest";
import { frameAbout } from "../adapters/notice-fixtures.ts";
import { ACCOUNT, sharedStorage, TwoInstanceScene, USER } from "../support/two-instances.ts";
import { Gate, sleep, waitFor } from "../support/wait.ts";

describe("a recall reaching one instance of two", () => {
  let scene: TwoInstanceScene | undefined;
  afterEach(async () => {
    await scene?.dispose();
    scene = undefined;
  });

  it("stops the turn the session's owner runs for the recalled trigger: nothing is answered", async () => {
    scene = await TwoInstanceScene.start();
    const group = await scene.startChat(await sharedStorage());

    // The account moves to b while a owns the chat: b hands the next mention to a, which thinks
    // about it; the member recalls it meanwhile, and the notice arrives at b.
    scene.gates.set("说错了", new Gate());
    await scene.reconnectTo("b");
    const trigger = scene.trigger(group, "说错了：我的手机号是13800138000");
    await waitFor(() => scene!.llm.requests.some((request) => request.promptText.includes("说错了")), 10_000);
    scene.qq.pushEvent(
      frameAbout("napcat/notice-group-recall", {
        self_id: ACCOUNT,
        group_id: group,
        user_id: USER,
        operator_id: USER,
        message_id: trigger.messageId,
      }),
    );
    const recalledBy = (id: string) =>
      scene!
        .bot(id)
        .logs.some((line) => line.msg === "message recalled" && line.messageId === trigger.messageId);
    await waitFor(() => recalledBy("a") || recalledBy("b"), 10_000, "the recall to be marked");
    scene.gates.get("说错了")!.open();

    // a's turn ends (its first one answered the chat's first message).
    const a = scene.bot("a");
    const turnsOfA = () => a.logs.filter((line) => String(line.msg).startsWith("turn ")).length;
    await waitFor(() => turnsOfA() >= 2, 10_000, "a's second turn to end");
    await sleep(2_000); // a reply on its way would have arrived by now
    // Only the chat's first message was answered; the owner marked the recall and its turn stopped.
    expect(scene.replies.get(group)).toHaveLength(1);
    expect(scene.sentBy(group)).toEqual({ a: 1, b: 0 });
    expect(recalledBy("a")).toBe(true);
    expect(
      a.logs.some(
        (line) =>
          line.msg === "turn silent" &&
          String(line.reason).includes(`recalled (msg_id ${trigger.messageId})`),
      ),
    ).toBe(true);
  }, 120_000);
});
