/**
 * The Instances page in a real browser: the console of either instance lists both,
 * marks the one it runs on, shows which holds the QQ account, and drops an instance that stopped.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BotHarness, startBot } from "../support/bot-harness.ts";
import { browserPages } from "../support/browser-pages.ts";
import { OneBotStandIn } from "../support/onebot-standin.ts";
import { freshPostgresUrl } from "../support/postgres-server.ts";
import { CLUSTER_SECRET, freshRedis } from "../support/redis-server.ts";

const TOKEN = "instances-browser-token";

describe("the Instances page", () => {
  const pages = browserPages();
  let a: BotHarness;
  let b: BotHarness;
  let qq: OneBotStandIn;

  beforeAll(async () => {
    const [databaseUrl, redis] = await Promise.all([freshPostgresUrl(), freshRedis()]);
    const instance = (id: string) =>
      startBot({
        config: {
          server: { token: TOKEN },
          storage: { url: databaseUrl },
          cluster: {
            redisUrl: redis.url,
            secret: CLUSTER_SECRET,
            instanceId: id,
            leaseMs: 1_000,
            keyPrefix: redis.keyPrefix.replace(/:$/, ""),
          },
        },
      });
    a = await instance("a");
    b = await instance("b");
    qq = new OneBotStandIn({ selfId: "10001" });
    await qq.connectReverse(a.wsUrl);
  });

  afterAll(async () => {
    await qq?.close();
    await b?.dispose();
    await a?.dispose();
  });

  const open = (bot: BotHarness, locale: string): Promise<Page> =>
    pages.open(`${bot.baseUrl}/instances`, { token: TOKEN, locale });

  it("lists every instance, this one marked, with the accounts each holds", async () => {
    const page = await open(b, "zh-CN");
    const rowA = page.locator("tr[data-instance=a]");
    const rowB = page.locator("tr[data-instance=b]");
    await rowA.filter({ hasText: "qq (10001)" }).waitFor();
    await rowB.waitFor();
    await expect(rowB.locator(".badge").textContent()).resolves.toBe("本实例");
    expect(await rowA.locator(".badge").count()).toBe(0);
    expect(await rowA.locator("td.mono").textContent()).toContain(`:${a.app.address.port}`);
    expect(await page.getByRole("heading", { name: "实例" }).count()).toBe(1);
  });

  it("drops an instance once it stopped", async () => {
    const page = await open(a, "en-US");
    await page.locator("tr[data-instance=b]").waitFor();
    await b.stop();
    await page.locator("tr[data-instance=b]").waitFor({ state: "detached", timeout: 10_000 });
    await expect(page.locator("tr[data-instance=a] .badge").textContent()).resolves.toBe("this one");
  });
});
