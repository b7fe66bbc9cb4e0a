import { randomBytes } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { QqOfficialAdapter } from "../../src/adapters/qq-official/qq-official-adapter.ts";
import type { ConnectInfo } from "../../src/api/types.ts";
import type { ChatMessage } from "../../src/message/inbound.ts";
import type { HealthReport } from "../../src/server/health-report.ts";
import { type BotHarness, startBot } from "../support/bot-harness.ts";
import { startTestHttpServer } from "../support/http-routes.ts";
import { LogCapture } from "../support/log-capture.ts";
import { QqOfficialStandIn } from "../support/qq-official-standin.ts";
import { ScriptedLlmServer } from "../support/scripted-llm-server.ts";
import { sleep, waitFor } from "../support/wait.ts";

const APP_ID = "102000000";
const WEBHOOK_PATH = "/qqbot/webhook";
const GROUP_OPENID = "C9F778FE6ADF9D1D1DBE395BF744A33A";
const MEMBER_OPENID = "E4F4AEA33253A2797FB897C50B81D7ED";

/** A fresh AppSecret per run: the platform's signing key and ours both derive from it. */
function newSecret(): string {
  return randomBytes(12).toString("base64url");
}

/**
 * `GROUP_AT_MESSAGE_CREATE` as the platform documents it (bot-docs
 * docs/develop/api-v2/server-inter/message/send-receive/event.md; botpy message.py GroupMessage):
 * the @ of the bot is stripped from `content`, leaving the space after it.
 */
function groupAtEvent(id: string, content: string): Record<string, unknown> {
  return {
    id: `GROUP_AT_MESSAGE_CREATE:${id}`,
    op: 0,
    s: 3,
    t: "GROUP_AT_MESSAGE_CREATE",
    d: {
      id,
      content: ` ${content}`,
      timestamp: new Date().toISOString(),
      group_id: GROUP_OPENID,
      group_openid: GROUP_OPENID,
      author: { id: MEMBER_OPENID, member_openid: MEMBER_OPENID, union_openid: "U1" },
      attachments: [],
    },
  };
}

describe("the QQ official bot API adapter", () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function setup(options: { secret?: string; tokenLifetimeS?: number; botSecret?: string } = {}) {
    const secret = options.secret ?? newSecret();
    const platform = await QqOfficialStandIn.start({
      appId: APP_ID,
      secret,
      ...(options.tokenLifetimeS === undefined ? {} : { tokenLifetimeS: options.tokenLifetimeS }),
    });
    const llm = await ScriptedLlmServer.start();
    const bot: BotHarness = await startBot({
      llm,
      // From a file, so the console's config view shows the adapter (with its secret hidden).
      configFile: true,
      config: {
        adapters: [
          {
            type: "qq-official",
            id: "qqbot",
            appId: APP_ID,
            secret: options.botSecret ?? secret,
            path: WEBHOOK_PATH,
            apiBase: platform.baseUrl,
            tokenUrl: platform.tokenUrl,
          },
        ],
      },
    });
    cleanups.push(
      () => platform.close(),
      () => llm.close(),
      () => bot.dispose(),
    );
    return { platform, llm, bot, secret, webhook: `${bot.baseUrl}${WEBHOOK_PATH}` };
  }

  it("answers a signed group @ event through the OpenAPI as a passive reply (msg_id, msg_seq)", async () => {
    const { platform, llm, bot, webhook, secret } = await setup();
    await waitFor(() => platform.tokenRequests.length > 0);
    expect(platform.tokenRequests[0]).toMatchObject({ appId: APP_ID, clientSecret: secret });

    llm.enqueue({ toolCalls: [{ name: "reply", arguments: {} }] }, { text: "你好呀" });
    const delivered = await platform.post(webhook, groupAtEvent("ROBOT1.0_msg-1", "紬，在吗"));
    // Op 12 acknowledges a dispatch (event-emit.md, OpCode table).
    expect(delivered).toEqual({ status: 200, body: JSON.stringify({ op: 12, d: 0 }) });

    const sent = await platform.waitForSend();
    expect(sent.path).toBe(`/v2/groups/${GROUP_OPENID}/messages`);
    expect(sent.body).toEqual({ msg_type: 0, content: "你好呀", msg_id: "ROBOT1.0_msg-1", msg_seq: 1 });
    expect(sent).toMatchObject({ token: "token-1", appIdHeader: APP_ID });
    const finished = await bot.turnFinished(1);
    expect(finished).toMatchObject({
      sessionId: `qq-official:${APP_ID}:group:${GROUP_OPENID}`,
      data: { status: "replied" },
    });
    // The model read the message as said, with the bot mentioned.
    expect(JSON.stringify(llm.lastRequestWithTool("reply")?.body)).toContain("紬，在吗");
    expect(JSON.stringify(bot.logs)).not.toContain(secret);
    const shownConfig = await (await fetch(`${bot.baseUrl}/api/config`)).text();
    expect(shownConfig).toContain(APP_ID);
    expect(shownConfig).not.toContain(secret);
  });

  it("refuses a badly signed or unsigned event with 401, logs each once and delivers nothing", async () => {
    const { platform, bot, webhook } = await setup();
    expect((await platform.post(webhook, groupAtEvent("m-forged", "forged"), "forged")).status).toBe(401);
    expect((await platform.post(webhook, groupAtEvent("m-unsigned", "unsigned"), "none")).status).toBe(401);
    // Unsigned, op 13 would make the bot sign any text an attacker chose.
    const unsignedValidation = { op: 13, d: { plain_token: "x", event_ts: "1" } };
    expect((await platform.post(webhook, unsignedValidation, "none")).status).toBe(401);

    const refusals = bot.logs.filter((line) => line.msg.includes("qq-official webhook refused"));
    expect(refusals).toHaveLength(3);
    await sleep(200);
    expect(bot.events.filter((event) => event.type === "message.ingested")).toHaveLength(0);
    expect(platform.sends()).toHaveLength(0);
  });

  it("answers the op 13 callback validation with the documented signature", async () => {
    // The example in event-emit.md: AppSecret DG5g3B4j9X2KOErG, its expected answer below.
    const { platform, webhook } = await setup({ secret: "DG5g3B4j9X2KOErG" });
    const validation = { d: { plain_token: "Arq0D5A61EgUu4OxUvOp", event_ts: "1725442341" }, op: 13 };
    const answer = await platform.post(webhook, validation);
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({
      plain_token: "Arq0D5A61EgUu4OxUvOp",
      signature:
        "87befc99c42c651b3aac0278e71ada338433ae26fcb24307bdc5ad38c1adc2d01bcfcadc0842edac85e85205028a1132afe09280305f13aa6909ffc2d652c706",
    });
  });

  it("renews the access token before it expires and sends with the new one", async () => {
    // 52 s tokens: the platform issues a new one in a token's last minute; the bot asks then.
    const { platform, llm, webhook } = await setup({ tokenLifetimeS: 52 });
    await waitFor(() => platform.tokenRequests.length === 1);
    const first = platform.tokenRequests[0]!.at;
    await waitFor(() => platform.tokenRequests.length === 2, 6_000);
    expect(platform.tokenRequests[1]!.at - first).toBeLessThan(52_000);

    llm.enqueue({ toolCalls: [{ name: "reply", arguments: {} }] }, { text: "新令牌" });
    await platform.post(webhook, groupAtEvent("m-after-refresh", "还在吗"));
    expect((await platform.waitForSend()).token).toBe("token-2");
  });

  it("shows the account as not connected while the AppSecret is refused at the token endpoint", async () => {
    const { platform, bot } = await setup({ botSecret: "wrong-secret" });
    await waitFor(() => platform.tokenRequests.length > 0);
    await bot.waitForLog((line) => String(line.msg).includes("qq-official access token not received"));
    const health = (await (await fetch(`${bot.baseUrl}/healthz`)).json()) as HealthReport;
    expect(health.adapters).toEqual([{ id: "qqbot", connected: false }]);
  });

  it("pauses sends for the time the platform's rate refusal names, and shows it", async () => {
    const { platform, llm, bot, webhook } = await setup();
    await waitFor(() => platform.tokenRequests.length > 0);
    platform.rateLimitNext("120");
    llm.enqueue({ toolCalls: [{ name: "reply", arguments: {} }] }, { text: "太快了" });
    await platform.post(webhook, groupAtEvent("m-limited", "说话"));
    await platform.waitForSend();
    await bot.waitForLog((line) => String(line.msg).includes("qq-official sends paused: rate limit"));
    const connect = (await (await fetch(`${bot.baseUrl}/api/connect`)).json()) as ConnectInfo;
    const [account] = connect.adapters[0]!.accounts;
    expect(account?.rateLimitedUntil).toBeGreaterThan(Date.now() + 100_000);
    expect(connect.adapters[0]).toMatchObject({
      mode: "qq-official",
      url: expect.stringContaining(WEBHOOK_PATH),
    });
  });
});

describe("the QQ official adapter on its own", () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it("maps a C2C message to a private chat and answers it with an uploaded picture and its text", async () => {
    const secret = newSecret();
    const platform = await QqOfficialStandIn.start({ appId: APP_ID, secret });
    const server = await startTestHttpServer();
    const messages: ChatMessage[] = [];
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
      logger: new LogCapture().logger(),
    });
    await adapter.start();
    cleanups.push(
      () => platform.close(),
      () => server.close(),
      () => adapter.stop(),
    );

    // C2C_MESSAGE_CREATE (bot-docs event.md; botpy message.py C2CMessage): author.user_openid.
    const c2c = {
      id: "C2C_MESSAGE_CREATE:c2c-1",
      op: 0,
      t: "C2C_MESSAGE_CREATE",
      d: {
        id: "ROBOT1.0_c2c-1",
        content: "发张图",
        timestamp: "2026-12-02T12:00:00+08:00",
        author: { id: MEMBER_OPENID, user_openid: MEMBER_OPENID },
        attachments: [
          { content_type: "image/png", url: "https://multimedia.nt.qq.com.cn/p.png", filename: "p.png" },
        ],
      },
    };
    expect((await platform.post(`${server.baseUrl}${WEBHOOK_PATH}`, c2c)).status).toBe(200);
    expect(messages).toEqual([
      expect.objectContaining({
        platform: "qq-official",
        sessionId: `qq-official:${APP_ID}:private:${MEMBER_OPENID}`,
        chatType: "private",
        userId: MEMBER_OPENID,
        messageId: "ROBOT1.0_c2c-1",
        time: Date.parse("2026-12-02T12:00:00+08:00"),
        segments: [
          { type: "text", data: { text: "发张图" } },
          { type: "image", data: { file: "p.png", url: "https://multimedia.nt.qq.com.cn/p.png" } },
        ],
      }),
    ]);

    const picture = Buffer.from("89504e470d0a1a0a", "hex").toString("base64");
    const { messageId } = await adapter.send({ selfId: APP_ID, chatType: "private", peerId: MEMBER_OPENID }, [
      { type: "text", data: { text: "给你" } },
      { type: "image", data: { file: `base64://${picture}` } },
    ]);
    const [upload, send] = platform.calls;
    // botpy api.py post_c2c_file: file_type 1 is a picture; srv_send_msg false keeps it a passive reply.
    expect(upload).toMatchObject({
      path: `/v2/users/${MEMBER_OPENID}/files`,
      body: { file_type: 1, file_data: picture, srv_send_msg: false },
    });
    expect(send).toMatchObject({
      path: `/v2/users/${MEMBER_OPENID}/messages`,
      body: {
        msg_type: 7,
        media: { file_info: "file-info-1" },
        content: "给你",
        msg_id: "ROBOT1.0_c2c-1",
        msg_seq: 1,
      },
    });
    expect(messageId).toBe("sent-1");
  });
});
