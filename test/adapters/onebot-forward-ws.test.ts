import { afterEach, describe, expect, it } from "vitest";
import { GROUP, SELF } from "../support/messages.ts";
import { type OneBotHarness, startOneBotHarness } from "../support/onebot-harness.ts";
import { sleep, waitFor } from "../support/wait.ts";

let harness: OneBotHarness | undefined;

afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe("OneBot forward WebSocket", () => {
  it("dials the implementation with its token, learns the self id and receives messages", async () => {
    harness = await startOneBotHarness({ mode: "forward-ws", accessToken: "tok" });
    expect(harness.adapter.accounts()).toEqual([{ selfId: SELF, connected: true }]);

    harness.standin.pushGroupMessage({
      groupId: GROUP,
      userId: "30000",
      message: [{ type: "text", data: { text: "array form" } }],
    });
    harness.standin.pushGroupMessage({
      groupId: GROUP,
      userId: "30000",
      message: "[CQ:face,id=1]string form",
    });
    const array = await harness.nextMessage((m) => m.segments.some((s) => s.type === "text"));
    expect(array.sessionId).toBe(`onebot:${SELF}:group:${GROUP}`);
    const cq = await harness.nextMessage((m) => m.segments[0]?.type === "face");
    expect(cq.segments).toMatchObject([
      { type: "face", data: { id: "1" } },
      { type: "text", data: { text: "string form" } },
    ]);
  });

  it("never connects with a wrong token, and says why", async () => {
    harness = await startOneBotHarness({
      mode: "forward-ws",
      accessToken: "tok",
      adapterAccessToken: "nope",
      connect: false,
    });
    await sleep(300);
    expect(harness.connections).toEqual([]);
    expect(harness.adapter.accounts()).toEqual([]);
    expect(harness.standin.actions).toEqual([]);
    const warning = harness.logs.find((line) => line.msg === "onebot socket error");
    // The stand-in answers a wrong token with 403, as the OneBot v11 spec says.
    expect(warning?.err).toContain("403");
    expect(JSON.stringify(harness.logs)).not.toContain("nope");
  });

  it("reconnects after the implementation restarts, with exactly one connection", async () => {
    harness = await startOneBotHarness({ mode: "forward-ws", reconnect: { minDelayMs: 20, maxDelayMs: 80 } });
    harness.standin.pushGroupMessage({ groupId: GROUP, userId: "30000", message: "before" });
    await harness.nextMessage();

    const statusesBefore = harness.connections.length;
    // Down long enough for several failed attempts: backoff timers must not pile up.
    await harness.standin.restart(300);
    await waitFor(
      () => harness!.connections.slice(statusesBefore).some((s) => s.connected),
      3_000,
      "reconnection",
    );
    const afterRestart = harness.connections.slice(statusesBefore);
    expect(afterRestart.map((s) => s.connected)).toEqual([false, true]);

    for (const text of ["one", "two", "three"]) {
      harness.standin.pushGroupMessage({ groupId: GROUP, userId: "30000", message: text });
    }
    await waitFor(() => harness!.messages.length >= 4, 2_000, "messages after restart");
    await sleep(300);
    expect(harness.standin.sockets()).toHaveLength(1);
    expect(harness.messages.map((m) => m.segments)).toEqual(
      ["before", "one", "two", "three"].map((text) => [{ type: "text", data: { text } }]),
    );
    const logLine = harness.logs.find((line) => line.msg === "onebot forward ws reconnecting");
    expect(logLine?.delayMs).toBeLessThanOrEqual(80);
  });

  it("refuses a frame above 16 MiB with close code 1009, then dials again", async () => {
    harness = await startOneBotHarness({ mode: "forward-ws", reconnect: { minDelayMs: 20, maxDelayMs: 40 } });
    const [socket] = harness.standin.sockets();
    harness.standin.pushRaw(`{"post_type":"message","pad":"${"x".repeat(17 * 1024 * 1024)}"}`);

    expect(await socket!.closed).toMatchObject({ code: 1009 });
    await waitFor(() => harness!.connections.filter((s) => s.connected).length >= 2, 3_000, "reconnection");
    expect(harness.logs.map((line) => line.msg)).toContain(
      "onebot frame larger than the limit refused, connection closed (1009)",
    );
  });

  it("stops reconnecting once stopped", async () => {
    harness = await startOneBotHarness({ mode: "forward-ws", reconnect: { minDelayMs: 20, maxDelayMs: 40 } });
    await harness.adapter.stop();
    const actionsAfterStop = harness.standin.actions.length;
    await sleep(200);
    expect(harness.standin.sockets()).toHaveLength(0);
    expect(harness.standin.actions).toHaveLength(actionsAfterStop);
  });
});
