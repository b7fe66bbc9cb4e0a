/**
 * What a running bot tells about its accounts and its chats to those who did not log in:
 * `/healthz` names no QQ number without the API token, and the log carries no message text
 * unless `log.messageText` is on.
 */
import { afterEach, describe, expect, it } from "vitest";
import { type BotHarness, startBot } from "../support/bot-harness.ts";
import { ALICE, GROUP, plain } from "../support/messages.ts";
import { OneBotStandIn } from "../support/onebot-standin.ts";
import { waitFor } from "../support/wait.ts";

/** Digits that appear nowhere else in a health report. */
const ACCOUNT = "987654321";
const TOKEN = "console-token";

let bot: BotHarness | undefined;
let qq: OneBotStandIn | undefined;

afterEach(async () => {
  await qq?.close();
  qq = undefined;
  await bot?.dispose();
  bot = undefined;
});

async function connectedBot(config: Record<string, unknown> = {}): Promise<BotHarness> {
  bot = await startBot({ config });
  qq = new OneBotStandIn({ selfId: ACCOUNT });
  await qq.connectReverse(bot.wsUrl);
  return bot;
}

async function healthText(harness: BotHarness, headers: Record<string, string> = {}): Promise<string> {
  const response = await fetch(`${harness.baseUrl}/healthz`, { headers });
  expect(response.status).toBe(200);
  return response.text();
}

describe("/healthz", () => {
  it("shows connections but no account number without a token configured", async () => {
    const harness = await connectedBot();
    await waitFor(async () => JSON.parse(await healthText(harness)).adapters[0].connected === true);
    const text = await healthText(harness);
    expect(text).not.toContain(ACCOUNT);
    expect(JSON.parse(text)).toEqual({
      status: "ok",
      adapters: [{ id: "qq", connected: true }],
      storage: expect.objectContaining({ state: "ok" }),
    });
  });

  it("names the account only to a request with the API token", async () => {
    const harness = await connectedBot({ server: { token: TOKEN } });
    const withToken = { authorization: `Bearer ${TOKEN}` };
    await waitFor(async () => (await healthText(harness, withToken)).includes(ACCOUNT));
    expect(JSON.parse(await healthText(harness, withToken)).adapters).toEqual([
      { id: "qq", selfId: ACCOUNT, connected: true },
    ]);
    const without: Record<string, string>[] = [
      {},
      { authorization: "Bearer wrong" },
      { authorization: `Basic ${TOKEN}` },
    ];
    for (const headers of without) {
      const text = await healthText(harness, headers);
      expect(text).not.toContain(ACCOUNT);
      expect(JSON.parse(text).adapters).toEqual([{ id: "qq", connected: true }]);
    }
    // The console reads accounts from /api/status.
    const status = await fetch(`${harness.baseUrl}/api/status`, { headers: withToken });
    expect(await status.text()).toContain(ACCOUNT);
  });
});

describe("message text in the log", () => {
  const SECRET_TEXT = "我的银行卡密码是一二三四";

  async function receivedLine(harness: BotHarness): Promise<Record<string, unknown>> {
    qq!.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: plain(SECRET_TEXT) });
    return harness.waitForLog((line) => line.msg === "message received");
  }

  it("is left out by default: ids, length and kinds instead", async () => {
    const harness = await connectedBot();
    const line = await receivedLine(harness);
    expect(line).toMatchObject({ sender: ALICE, kinds: ["text"], chars: SECRET_TEXT.length });
    expect(line).not.toHaveProperty("text");
    expect(JSON.stringify(harness.logs)).not.toContain(SECRET_TEXT.slice(0, 4));
  });

  it("is written with log.messageText on", async () => {
    const harness = await connectedBot({ log: { level: "debug", messageText: true } });
    const line = await receivedLine(harness);
    expect(line).toMatchObject({ text: SECRET_TEXT, chars: SECRET_TEXT.length });
  });
});
