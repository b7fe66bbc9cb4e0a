/**
 * A signed QQ official webhook event, captured and sent again: it was refused only while its id
 * was among the last 1,000 remembered, so after 30 minutes or 10,000 other events it was
 * accepted — and answered — again. Now the signed timestamp must be within ten minutes of the
 * bot's clock, and ids are remembered for as long as their event could still be accepted.
 * Shapes: bot-docs docs/develop/api-v2/dev-prepare/interface-framework/sign.md (X-Signature-*)
 * and .../server-inter/message/send-receive/event.md (GROUP_AT_MESSAGE_CREATE).
 */
import { randomBytes } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { QqOfficialAdapter } from "../../src/adapters/qq-official/qq-official-adapter.ts";
import type { ChatMessage } from "../../src/message/inbound.ts";
import { startTestHttpServer } from "../support/http-routes.ts";
import { LogCapture } from "../support/log-capture.ts";
import { QqOfficialStandIn } from "../support/qq-official-standin.ts";
import { waitFor } from "../support/wait.ts";

const APP_ID = "102000000";
const WEBHOOK_PATH = "/qqbot/webhook";
const GROUP_OPENID = "C9F778FE6ADF9D1D1DBE395BF744A33A";

function groupAtEvent(id: string): Record<string, unknown> {
  return {
    id: `GROUP_AT_MESSAGE_CREATE:${id}`,
    op: 0,
    t: "GROUP_AT_MESSAGE_CREATE",
    d: {
      id,
      content: " 你好",
      timestamp: new Date().toISOString(),
      group_id: GROUP_OPENID,
      group_openid: GROUP_OPENID,
      author: { id: "E4F4", member_openid: "E4F4", union_openid: "U1" },
      attachments: [],
    },
  };
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function scene() {
  const secret = randomBytes(12).toString("base64url");
  const platform = await QqOfficialStandIn.start({ appId: APP_ID, secret });
  const server = await startTestHttpServer();
  const messages: ChatMessage[] = [];
  const log = new LogCapture();
  let clock = Date.now();
  const adapter = new QqOfficialAdapter({
    config: {
      type: "qq-official",
      id: "qqbot",
      appId: APP_ID,
      secret,
      path: WEBHOOK_PATH,
      apiBase: platform.baseUrl,
      tokenUrl: platform.tokenUrl,
      markdown: false,
      actionTimeoutMs: 5_000,
    },
    routes: server.routes,
    events: { message: (message) => messages.push(message), connection: () => {} },
    logger: log.logger(),
    now: () => clock,
  });
  await adapter.start();
  cleanups.push(
    () => platform.close(),
    () => server.close(),
    () => adapter.stop(),
  );
  const webhook = `${server.baseUrl}${WEBHOOK_PATH}`;
  return {
    platform,
    messages,
    log,
    webhook,
    advance: (ms: number) => {
      clock += ms;
    },
    now: () => clock,
  };
}

describe("replays of a signed QQ official webhook event", { timeout: 120_000 }, () => {
  it("refuses the event sent again 30 minutes later, by its signed time", async () => {
    const { platform, messages, log, webhook, advance, now } = await scene();
    const signedAt = now();
    expect((await platform.post(webhook, groupAtEvent("m1"), "good", signedAt)).status).toBe(200);
    await waitFor(() => messages.length === 1);
    advance(30 * 60_000);
    expect((await platform.post(webhook, groupAtEvent("m1"), "good", signedAt)).status).toBe(401);
    expect(messages).toHaveLength(1);
    expect(log.lines.some((line) => String(line.msg).includes("outside the 10-minute replay window"))).toBe(
      true,
    );
    // An event signed just now still arrives; one signed an hour ahead of our clock does not.
    expect((await platform.post(webhook, groupAtEvent("m2"), "good", now())).status).toBe(200);
    expect((await platform.post(webhook, groupAtEvent("m3"), "good", now() + 60 * 60_000)).status).toBe(401);
    await waitFor(() => messages.length === 2);
    expect(messages.map((message) => message.messageId)).toEqual(["m1", "m2"]);
  });

  // 10,000 others took the attacker's replay through; 2,000 (twice the ids remembered before) keep this test short.
  it("refuses the event sent again after 2,000 other events within the window", async () => {
    const { platform, messages, webhook, now } = await scene();
    const signedAt = now();
    await platform.post(webhook, groupAtEvent("first"), "good", signedAt);
    const others = Array.from({ length: 2_000 }, (_, index) => `other-${index}`);
    for (let start = 0; start < others.length; start += 50) {
      await Promise.all(
        others.slice(start, start + 50).map((id) => platform.post(webhook, groupAtEvent(id), "good", now())),
      );
    }
    await waitFor(() => messages.length === 2_001, 30_000);
    // Answered 200 as any re-delivery is (the platform must not send it again), and dropped.
    expect((await platform.post(webhook, groupAtEvent("first"), "good", signedAt)).status).toBe(200);
    expect(messages).toHaveLength(2_001);
  });
});
