import { afterEach, describe, expect, it } from "vitest";
import { OneBotActionError } from "../../src/adapters/onebot/action-error.ts";
import type { Segment } from "../../src/message/segment.ts";
import { GROUP, SELF } from "../support/messages.ts";
import { type OneBotHarness, startOneBotHarness } from "../support/onebot-harness.ts";
import { sleep } from "../support/wait.ts";

const ALICE = "30000";

let harness: OneBotHarness | undefined;

afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe("OneBot actions over WebSocket", () => {
  it("matches concurrent answers to their calls by echo, even out of order", async () => {
    harness = await startOneBotHarness({ mode: "reverse-ws" });
    const first = harness.standin.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: "first" });
    const second = harness.standin.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: "second" });
    // The first lookup is answered last.
    harness.standin.delay("get_msg", (params) => (String(params.message_id) === first ? 150 : 0));

    const finished: string[] = [];
    const lookup = (id: string) =>
      harness!.adapter.callAction(SELF, "get_msg", { message_id: Number(id) }).then((data) => {
        finished.push(id);
        return data as { raw_message: string };
      });
    const [a, b, login] = await Promise.all([
      lookup(first),
      lookup(second),
      harness.adapter.callAction(SELF, "get_login_info", {}),
    ]);

    expect(a.raw_message).toBe("first");
    expect(b.raw_message).toBe("second");
    expect(login).toMatchObject({ user_id: 10000 });
    expect(finished).toEqual([second, first]);
    const echoes = harness.standin.actions.map((action) => action.echo);
    expect(new Set(echoes).size).toBe(3);
  });

  it("sends group and private messages and returns the platform message id as a string", async () => {
    harness = await startOneBotHarness({ mode: "reverse-ws" });
    const segments: Segment[] = [
      { type: "reply", data: { id: "-123" } },
      { type: "at", data: { qq: ALICE } },
      { type: "text", data: { text: " 你好" } },
    ];
    const group = await harness.adapter.send({ selfId: SELF, chatType: "group", peerId: GROUP }, segments);
    const direct = await harness.adapter.send({ selfId: SELF, chatType: "private", peerId: ALICE }, [
      { type: "text", data: { text: "私聊" } },
    ]);

    const [sentGroup, sentDirect] = harness.standin.sent;
    expect(sentGroup).toMatchObject({ action: "send_group_msg", groupId: GROUP, text: " 你好" });
    expect(sentGroup!.message).toEqual([
      { type: "reply", data: { id: "-123" } },
      { type: "at", data: { qq: ALICE } },
      { type: "text", data: { text: " 你好" } },
    ]);
    expect(sentDirect).toMatchObject({ action: "send_private_msg", userId: ALICE, text: "私聊" });
    expect(group.messageId).toBe(String(sentGroup!.messageId));
    expect(direct.messageId).toBe(String(sentDirect!.messageId));
    // Group and user ids go out as JSON numbers, which every implementation accepts.
    expect(harness.standin.actions[0]!.params.group_id).toBe(20000);
  });

  it("fails a failed action with the implementation's retcode, message and wording", async () => {
    harness = await startOneBotHarness({ mode: "reverse-ws" });
    harness.standin.failNext("send_group_msg", {
      retcode: 1200,
      message: "发送失败",
      wording: "消息发送失败",
    });

    const error = await harness.adapter
      .send({ selfId: SELF, chatType: "group", peerId: GROUP }, [{ type: "text", data: { text: "x" } }])
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(OneBotActionError);
    expect(error).toMatchObject({
      kind: "failed",
      action: "send_group_msg",
      retcode: 1200,
      wording: "消息发送失败",
    });
    expect((error as Error).message).toContain("发送失败");
    // The next call is unaffected.
    await harness.adapter.send({ selfId: SELF, chatType: "group", peerId: GROUP }, [
      { type: "text", data: { text: "y" } },
    ]);
    expect(harness.standin.sent.map((s) => s.text)).toEqual(["y"]);
  });

  it("times out an unanswered action and ignores its late answer", async () => {
    harness = await startOneBotHarness({ mode: "reverse-ws", actionTimeoutMs: 100 });
    harness.standin.delay("get_msg", 250);

    const started = Date.now();
    const error = await harness.adapter
      .callAction(SELF, "get_msg", { message_id: 1 })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: "timeout", action: "get_msg", retcode: undefined });
    expect(Date.now() - started).toBeLessThan(240);

    const overridden = await harness.adapter
      .callAction(SELF, "get_msg", { message_id: 1 }, { timeoutMs: 30 })
      .catch((e: unknown) => e);
    expect(overridden).toMatchObject({ kind: "timeout" });

    await sleep(300);
    expect(await harness.adapter.callAction(SELF, "get_login_info", {})).toMatchObject({ user_id: 10000 });
  });

  it("fails pending actions at once when the socket drops, and calls without a connection", async () => {
    harness = await startOneBotHarness({ mode: "reverse-ws", actionTimeoutMs: 5_000 });
    harness.standin.delay("get_forward_msg", 4_000);

    const started = Date.now();
    const pending = harness.adapter.callAction(SELF, "get_forward_msg", { id: "1" }).catch((e: unknown) => e);
    await harness.standin.waitForAction("get_forward_msg");
    harness.standin.disconnect();

    expect(await pending).toMatchObject({ kind: "disconnected", action: "get_forward_msg" });
    expect(Date.now() - started).toBeLessThan(1_000);
    const later = await harness.adapter.callAction(SELF, "get_login_info", {}).catch((e: unknown) => e);
    expect(later).toMatchObject({ kind: "disconnected" });
    const unknownAccount = await harness.adapter
      .callAction("999", "get_login_info", {})
      .catch((e: unknown) => e);
    expect(unknownAccount).toMatchObject({ kind: "disconnected" });
  });

  it("fails pending actions when the adapter stops", async () => {
    harness = await startOneBotHarness({ mode: "reverse-ws" });
    harness.standin.delay("get_msg", 1_000);
    const pending = harness.adapter.callAction(SELF, "get_msg", { message_id: 1 }).catch((e: unknown) => e);
    await harness.standin.waitForAction("get_msg");

    await harness.adapter.stop();
    expect(await pending).toMatchObject({ kind: "disconnected" });
    expect(harness.standin.sockets()).toHaveLength(0);
  });
});
