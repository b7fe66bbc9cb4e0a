import { afterEach, describe, expect, it } from "vitest";
import { OneBotActionError } from "../../src/adapters/onebot/action-error.ts";
import { GROUP, SELF } from "../support/messages.ts";
import { HTTP_EVENT_PATH, type OneBotHarness, startOneBotHarness } from "../support/onebot-harness.ts";
import { waitFor } from "../support/wait.ts";

const SECRET = "post-secret";

let harness: OneBotHarness | undefined;

afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

function groupMessageEvent(text: string): Record<string, unknown> {
  return {
    time: 1_700_000_000,
    self_id: Number(SELF),
    post_type: "message",
    message_type: "group",
    sub_type: "normal",
    message_id: 4242,
    group_id: Number(GROUP),
    user_id: 30000,
    message: [{ type: "text", data: { text } }],
    raw_message: text,
    font: 0,
    sender: { user_id: 30000, nickname: "alice", card: "" },
  };
}

describe("OneBot HTTP mode", () => {
  it("learns the account from get_login_info, receives signed events and sends through the API", async () => {
    harness = await startOneBotHarness({ mode: "http", accessToken: "api-token", secret: SECRET });
    expect(harness.adapter.accounts()).toEqual([{ selfId: SELF, connected: true }]);

    harness.standin.pushGroupMessage({ groupId: GROUP, userId: "30000", message: "[CQ:face,id=5]over http" });
    const message = await harness.nextMessage();
    expect(message.sessionId).toBe(`onebot:${SELF}:group:${GROUP}`);
    expect(message.segments).toMatchObject([
      { type: "face", data: { id: "5" } },
      { type: "text", data: { text: "over http" } },
    ]);

    const { messageId } = await harness.adapter.send({ selfId: SELF, chatType: "group", peerId: GROUP }, [
      { type: "text", data: { text: "reply over http" } },
    ]);
    const sent = await harness.standin.waitForSent();
    expect(sent).toMatchObject({ action: "send_group_msg", groupId: GROUP, text: "reply over http" });
    expect(messageId).toBe(String(sent.messageId));
    expect(sent.messageId).toBeGreaterThan(0);
  });

  it("rejects events with a bad or missing signature with 401 and does not deliver them", async () => {
    harness = await startOneBotHarness({ mode: "http", secret: SECRET });
    const url = `${harness.server.baseUrl}${HTTP_EVENT_PATH}`;

    expect(await harness.standin.postEvent(url, groupMessageEvent("forged"), "wrong-secret")).toBe(401);
    expect(await harness.standin.postEvent(url, groupMessageEvent("unsigned"))).toBe(401);
    expect(await harness.standin.postEvent(url, "{not json", SECRET)).toBe(400);
    expect(await harness.standin.postEvent(url, groupMessageEvent("genuine"), SECRET)).toBe(204);

    const message = await harness.nextMessage();
    expect(message.segments).toEqual([{ type: "text", data: { text: "genuine" } }]);
    expect(harness.messages).toHaveLength(1);
    const rejections = harness.logs.filter((line) => line.msg.includes("X-Signature"));
    expect(rejections).toHaveLength(2);
  });

  it("turns API failures into OneBotActionError and tracks whether the API is reachable", async () => {
    harness = await startOneBotHarness({ mode: "http", actionTimeoutMs: 150 });
    harness.standin.failNext("get_msg", { retcode: 1400, message: "参数错误", wording: "message_id 无效" });
    const failed = await harness.adapter
      .callAction(SELF, "get_msg", { message_id: 1 })
      .catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(OneBotActionError);
    expect(failed).toMatchObject({
      kind: "failed",
      action: "get_msg",
      retcode: 1400,
      wording: "message_id 无效",
    });

    const unknown = await harness.adapter.callAction(SELF, "no_such_action", {}).catch((e: unknown) => e);
    expect(unknown).toMatchObject({ kind: "failed", retcode: 1404 });

    harness.standin.delay("get_msg", 1_000);
    const slow = await harness.adapter
      .callAction(SELF, "get_msg", { message_id: 1 })
      .catch((e: unknown) => e);
    expect(slow).toMatchObject({ kind: "timeout", action: "get_msg" });
    harness.standin.delay("get_msg", 0);

    const restarted = harness.standin.restart(400);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const down = await harness.adapter.callAction(SELF, "get_login_info", {}).catch((e: unknown) => e);
    expect(down).toMatchObject({ kind: "disconnected", action: "get_login_info" });
    expect(harness.adapter.accounts()).toEqual([{ selfId: SELF, connected: false }]);
    await restarted;
    await waitFor(() => harness!.adapter.accounts().some((a) => a.connected), 3_000, "API reachable again");
    expect(harness.connections.map((s) => s.connected)).toEqual([true, false, true]);
  });
});
