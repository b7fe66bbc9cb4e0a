import { afterEach, describe, expect, it } from "vitest";
import { LOG_LEVEL } from "../support/log-capture.ts";
import { GROUP, SELF } from "../support/messages.ts";
import { type OneBotHarness, startOneBotHarness } from "../support/onebot-harness.ts";

const ALICE = "30000";

let harness: OneBotHarness | undefined;

afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe("OneBot events", () => {
  it("logs and skips malformed frames and unknown events, keeping the connection", async () => {
    harness = await startOneBotHarness({ mode: "reverse-ws" });
    const blob = "A".repeat(5_000);
    harness.standin.pushRaw(`{"post_type":"message","message":"[CQ:image,file=base64://${blob}]"`);
    harness.standin.pushRaw("[1,2,3]");
    harness.standin.pushRaw('{"access_token":"leak-me" oops');
    harness.standin.pushEvent({ post_type: "notice", notice_type: "group_increase", group_id: 20000 });
    harness.standin.pushEvent({ post_type: "request", request_type: "friend", user_id: 1 });
    harness.standin.pushEvent({ post_type: "something_new", extra: { nested: true } });
    harness.standin.pushEvent({ post_type: "message", message_type: "guild", user_id: 1, message_id: 1 });
    harness.standin.pushEvent({
      post_type: "message_sent",
      message_type: "group",
      message_id: 77,
      group_id: 20000,
      user_id: 10000,
      message: [{ type: "text", data: { text: "my own" } }],
    });
    harness.standin.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: "still here" });

    const message = await harness.nextMessage();
    expect(message.segments).toEqual([{ type: "text", data: { text: "still here" } }]);
    expect(harness.messages).toHaveLength(1);
    expect(harness.standin.sockets()).toHaveLength(1);
    const warnings = harness.logs.filter((line) => line.level === LOG_LEVEL.warn);
    expect(warnings.map((line) => line.msg)).toEqual([
      "onebot frame ignored",
      "onebot frame ignored",
      "onebot frame ignored",
    ]);
    expect(JSON.stringify(harness.logs)).not.toContain("leak-me");
    const firstSample = String(warnings[0]!.sample);
    expect(firstSample.length).toBeLessThan(300);
    expect(firstSample).not.toContain("AAAAAAAAAAAAAAAAAAAAAAAA");
    const debugMessages = harness.logs
      .filter((line) => line.level === LOG_LEVEL.debug)
      .map((line) => line.msg);
    expect(debugMessages).toEqual(
      expect.arrayContaining([
        "onebot event ignored",
        "onebot message_sent ignored",
        "onebot message event ignored",
      ]),
    );
  });

  it("takes a 12 MB frame and refuses one above 16 MiB with close code 1009 and one warning", async () => {
    harness = await startOneBotHarness({ mode: "reverse-ws" });
    const [socket] = harness.standin.sockets();
    // The text travels twice (`message` and `raw_message`): a 12 MB frame.
    harness.standin.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: "x".repeat(6_000_000) });
    await harness.nextMessage(undefined, 10_000);

    harness.standin.pushRaw(`{"post_type":"message","pad":"${"x".repeat(17 * 1024 * 1024)}"}`);
    expect(await socket!.closed).toMatchObject({ code: 1009 });
    const warnings = harness.logs.filter((line) => line.level === LOG_LEVEL.warn);
    expect(warnings.map((line) => line.msg)).toEqual([
      "onebot frame larger than the limit refused, connection closed (1009)",
    ]);
  });

  it("refuses absurdly nested or long messages with one warning naming the event, and keeps going", async () => {
    harness = await startOneBotHarness({ mode: "reverse-ws" });
    const head = '{"post_type":"message","message_type":"group","group_id":20000,"user_id":30000';
    const deep = `${'[{"type":"node","data":{"content":'.repeat(100_000)}[]${"}}]".repeat(100_000)}`;
    harness.standin.pushRaw(`${head},"message_id":1,"message":${deep}}`);
    harness.standin.pushRaw(`${head},"message_id":2,"message":"${"[CQ:face,id=1]".repeat(20_000)}"}`);
    const many = JSON.stringify(
      Array.from({ length: 20_000 }, () => ({ type: "text", data: { text: "a" } })),
    );
    harness.standin.pushRaw(`${head},"message_id":3,"message":${many}}`);
    harness.standin.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: "ordinary" });

    await harness.nextMessage();
    expect(harness.messages.map((m) => m.segments)).toEqual([[{ type: "text", data: { text: "ordinary" } }]]);
    const refusals = harness.logs.filter((line) => line.msg === "onebot message event refused");
    expect(refusals).toMatchObject([
      {
        level: LOG_LEVEL.warn,
        messageId: "1",
        groupId: GROUP,
        problem: "message nested deeper than 128 levels",
      },
      { level: LOG_LEVEL.warn, messageId: "2", userId: ALICE, problem: "message more than 10000 segments" },
      { level: LOG_LEVEL.warn, messageId: "3", problem: "message more than 10000 segments" },
    ]);
  });

  it("keeps a 19-digit forward id sent as a raw JSON number exact, and negative message ids", async () => {
    harness = await startOneBotHarness({ mode: "reverse-ws" });
    harness.standin.pushRaw(
      `{"time":1700000000,"self_id":10000,"post_type":"message","message_type":"group","sub_type":"normal",` +
        `"message_id":-2147483000,"group_id":20000,"user_id":30000,"font":0,"raw_message":"",` +
        `"message":[{"type":"forward","data":{"id":7412589630258741236}}],` +
        `"sender":{"user_id":30000,"nickname":"bob","card":""}}`,
    );

    const message = await harness.nextMessage();
    expect(message.messageId).toBe("-2147483000");
    expect(message.senderName).toBe("bob");
    expect(message.segments).toEqual([{ type: "forward", data: { id: "7412589630258741236" } }]);
  });

  it("tracks heartbeat online state per account and reports changes", async () => {
    harness = await startOneBotHarness({ mode: "reverse-ws" });
    harness.standin.heartbeat(true);
    await harness.waitForConnection((status) => status.online === true);
    harness.standin.heartbeat(true);
    harness.standin.heartbeat(false);
    await harness.waitForConnection((status) => status.online === false);

    expect(harness.adapter.accounts()).toEqual([{ selfId: SELF, connected: true, online: false }]);
    expect(harness.connections.map((s) => s.online)).toEqual([undefined, true, false]);
    harness.standin.disconnect();
    await harness.waitForConnection((status) => !status.connected);
    expect(harness.adapter.accounts()).toEqual([{ selfId: SELF, connected: false }]);
  });

  it("marks messages from the bot's own account as fromSelf", async () => {
    harness = await startOneBotHarness({ mode: "reverse-ws" });
    harness.standin.pushGroupMessage({ groupId: GROUP, userId: SELF, message: "typed on the phone" });
    harness.standin.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: "from alice" });

    await harness.nextMessage((message) => message.userId === ALICE);
    expect(harness.messages.map((m) => [m.userId, m.fromSelf])).toEqual([
      [SELF, true],
      [ALICE, false],
    ]);
  });
});
