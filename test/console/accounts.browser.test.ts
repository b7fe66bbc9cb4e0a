/**
 * The Connect QQ page in a real browser: an account that has gone away is listed with when it
 * last connected and a Dismiss button (in the page's language); dismissed, it leaves the page
 * and the header until it connects again.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BotHarness, startBot } from "../support/bot-harness.ts";
import { browserPages } from "../support/browser-pages.ts";
import { OneBotStandIn } from "../support/onebot-standin.ts";

const TOKEN = "accounts-browser-token";
const STAYS = "10000";
const LEAVES = "10001";

describe("dismissing an account that is gone, on the Connect QQ page", () => {
  const pages = browserPages();
  let bot: BotHarness;
  const standIns: OneBotStandIn[] = [];

  beforeAll(async () => {
    bot = await startBot({ config: { server: { token: TOKEN } } });
  });
  afterAll(async () => {
    for (const standIn of standIns) await standIn.close();
    await bot?.dispose();
  });

  async function connect(selfId: string): Promise<OneBotStandIn> {
    const standIn = new OneBotStandIn({ selfId });
    standIns.push(standIn);
    await standIn.connectReverse(bot.wsUrl);
    return standIn;
  }

  it("lists the gone account, dismisses it, and lists it again when it reconnects", async () => {
    await connect(STAYS);
    const leaving = await connect(LEAVES);
    const page = await pages.open(`${bot.baseUrl}/connect`, { token: TOKEN, locale: "zh-CN" });
    const account = (selfId: string) => page.locator(`.account[data-self-id="${selfId}"]`);
    await expect.poll(() => account(LEAVES).textContent()).toContain("已连接");
    // A connected account has nothing to dismiss.
    expect(await account(LEAVES).getByRole("button").count()).toBe(0);

    await leaving.close();
    await expect.poll(() => account(LEAVES).textContent(), { timeout: 8_000 }).toContain("未连接");
    expect(await account(LEAVES).textContent()).toContain("上次连接");
    await expect.poll(() => page.locator(".adapter-badges").textContent()).toContain(LEAVES);

    await account(LEAVES).getByRole("button", { name: "移除" }).click();
    await expect.poll(() => account(LEAVES).count()).toBe(0);
    expect(await account(STAYS).textContent()).toContain("已连接");
    // The header reads the status again on its own schedule; a reload shows it at once.
    await page.reload();
    await account(STAYS).waitFor();
    expect(await account(LEAVES).count()).toBe(0);
    expect(await page.locator(".adapter-badges").textContent()).not.toContain(LEAVES);

    await connect(LEAVES);
    await expect.poll(() => account(LEAVES).textContent(), { timeout: 8_000 }).toContain("已连接");
  });

  it("says Dismiss in English", async () => {
    const page = await pages.open(`${bot.baseUrl}/connect`, { token: TOKEN, locale: "en-US" });
    const account = page.locator(`.account[data-self-id="${LEAVES}"]`);
    await expect.poll(() => account.textContent()).toContain("connected");
    standIns.at(-1)?.disconnect();
    await expect.poll(() => account.textContent(), { timeout: 8_000 }).toContain("last connected");
    await account.getByRole("button", { name: "Dismiss" }).click();
    await expect.poll(() => account.count()).toBe(0);
  });
});
