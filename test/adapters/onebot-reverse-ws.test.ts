import { afterEach, describe, expect, it } from "vitest";
import { GROUP, SELF } from "../support/messages.ts";
import { ONEBOT_PATH, type OneBotHarness, startOneBotHarness } from "../support/onebot-harness.ts";
import { OneBotStandIn, UpgradeRejectedError } from "../support/onebot-standin.ts";
import { waitFor } from "../support/wait.ts";

const ALICE = "30000";

let harness: OneBotHarness | undefined;
const extraStandIns: OneBotStandIn[] = [];

afterEach(async () => {
  for (const standin of extraStandIns.splice(0)) await standin.close();
  await harness?.close();
  harness = undefined;
});

describe("OneBot reverse WebSocket", () => {
  it("receives a group message sent as a segment array", async () => {
    harness = await startOneBotHarness({ mode: "reverse-ws", accessToken: "s3cret" });
    const messageId = harness.standin.pushGroupMessage({
      groupId: GROUP,
      userId: ALICE,
      nickname: "alice",
      card: "Alice (group card)",
      time: 1_700_000_000,
      message: [
        { type: "at", data: { qq: SELF } },
        { type: "text", data: { text: " hello" } },
        { type: "image", data: { file: "abc.jpg", url: "https://example.com/abc.jpg" } },
      ],
    });

    const message = await harness.nextMessage();
    expect(message).toMatchObject({
      platform: "onebot",
      adapterId: "qq",
      selfId: SELF,
      sessionId: `onebot:${SELF}:group:${GROUP}`,
      chatType: "group",
      groupId: GROUP,
      userId: ALICE,
      senderName: "Alice (group card)",
      messageId,
      time: 1_700_000_000_000,
      fromSelf: false,
    });
    expect(message.segments).toMatchObject([
      { type: "at", data: { qq: SELF } },
      { type: "text", data: { text: " hello" } },
      { type: "image", data: { file: "abc.jpg", url: "https://example.com/abc.jpg" } },
    ]);
    expect(harness.adapter.accounts()).toEqual([{ selfId: SELF, connected: true }]);
  });

  it("receives messages sent as CQ strings, escapes decoded", async () => {
    harness = await startOneBotHarness({ mode: "reverse-ws", messageFormat: "string" });
    harness.standin.pushGroupMessage({
      groupId: GROUP,
      userId: ALICE,
      nickname: "alice",
      message: [
        { type: "face", data: { id: "14" } },
        { type: "text", data: { text: "a [b] & c" } },
      ],
    });
    harness.standin.pushPrivateMessage({
      userId: ALICE,
      nickname: "alice",
      message: "[CQ:at,qq=10000] hi &#91;1&#93;",
    });

    const group = await harness.nextMessage((m) => m.chatType === "group");
    expect(group.senderName).toBe("alice");
    expect(group.segments).toMatchObject([
      { type: "face", data: { id: "14" } },
      { type: "text", data: { text: "a [b] & c" } },
    ]);
    const direct = await harness.nextMessage((m) => m.chatType === "private");
    expect(direct.sessionId).toBe(`onebot:${SELF}:private:${ALICE}`);
    expect(direct.groupId).toBeUndefined();
    expect(direct.segments).toMatchObject([
      { type: "at", data: { qq: SELF } },
      { type: "text", data: { text: " hi [1]" } },
    ]);
  });

  it("answers a missing or wrong token with 401 and accepts it as a query parameter", async () => {
    harness = await startOneBotHarness({ mode: "reverse-ws", accessToken: "right", connect: false });
    const url = harness.server.wsUrl(ONEBOT_PATH);
    const intruder = new OneBotStandIn({ selfId: "666" });
    extraStandIns.push(intruder);

    await expect(intruder.connectReverse(url)).rejects.toMatchObject({ status: 401 });
    const wrong = intruder.connectReverse(url, { accessToken: "wrong" });
    await expect(wrong).rejects.toBeInstanceOf(UpgradeRejectedError);
    await expect(wrong).rejects.toMatchObject({ status: 401 });
    expect(harness.adapter.accounts()).toEqual([]);
    expect(harness.connections).toEqual([]);

    await intruder.connectReverse(`${url}?access_token=right`, { accessToken: "" });
    await harness.waitForConnection((status) => status.selfId === "666" && status.connected);
    expect(JSON.stringify(harness.logs)).not.toContain("right");
  });

  it("splits API and Event sockets as Lagrange does (role 'Api')", async () => {
    harness = await startOneBotHarness({ mode: "reverse-ws", connect: false });
    const url = harness.server.wsUrl(ONEBOT_PATH);
    const api = await harness.standin.connectReverse(url, { role: "Api" });
    const eventSocket = await harness.standin.connectReverse(url, { role: "Event" });

    await harness.adapter.callAction(SELF, "get_login_info", {});
    expect(harness.standin.actions.map((action) => action.via)).toEqual([api]);
    harness.standin.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: "via event socket" });
    await harness.nextMessage();
    expect(api.isOpen && eventSocket.isOpen).toBe(true);
  });

  it("lets a newer connection for the same self id replace the older one", async () => {
    harness = await startOneBotHarness({ mode: "reverse-ws" });
    const url = harness.server.wsUrl(ONEBOT_PATH);
    const [older] = harness.standin.sockets();
    const newer = await harness.standin.connectReverse(url);

    expect(await older!.closed).toMatchObject({ reason: "replaced by a newer connection" });
    expect(newer.isOpen).toBe(true);
    // Reported: the older one opened, the newer one opened, the older one closed; connected throughout.
    await waitFor(() => harness!.connections.length === 3, 2_000, "the older connection's close");
    expect(harness.connections.map((status) => status.connected)).toEqual([true, true, true]);
    expect(harness.adapter.accounts()).toEqual([{ selfId: SELF, connected: true }]);

    await harness.adapter.send({ selfId: SELF, chatType: "group", peerId: GROUP }, [
      { type: "text", data: { text: "after replacement" } },
    ]);
    const action = await harness.standin.waitForAction("send_group_msg");
    expect(action.via).toBe(newer);
  });

  it("serves several accounts at once and routes each account's actions to its own socket", async () => {
    harness = await startOneBotHarness({ mode: "reverse-ws" });
    const second = new OneBotStandIn({ selfId: "10001" });
    extraStandIns.push(second);
    await second.connectReverse(harness.server.wsUrl(ONEBOT_PATH));
    await harness.waitForConnection((status) => status.selfId === "10001" && status.connected);

    await harness.adapter.send({ selfId: "10001", chatType: "private", peerId: ALICE }, [
      { type: "text", data: { text: "from the second account" } },
    ]);
    const sent = await second.waitForSent();
    expect(sent).toMatchObject({
      action: "send_private_msg",
      userId: ALICE,
      text: "from the second account",
    });
    expect(harness.standin.sent).toEqual([]);
    expect(
      harness.adapter
        .accounts()
        .map((a) => a.selfId)
        .sort(),
    ).toEqual([SELF, "10001"]);
  });

  it("reports the account disconnected when the implementation drops the socket", async () => {
    harness = await startOneBotHarness({ mode: "reverse-ws" });
    harness.standin.disconnect();

    await harness.waitForConnection((status) => !status.connected);
    expect(harness.adapter.accounts()).toEqual([{ selfId: SELF, connected: false }]);
    const infoLines = harness.logs.filter((line) => line.msg.startsWith("onebot connection"));
    expect(infoLines.map((line) => line.msg)).toEqual([
      "onebot connection opened",
      "onebot connection closed",
    ]);
  });
});
