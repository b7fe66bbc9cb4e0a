/**
 * Two instances over one PostgreSQL database and one Redis, both taking HTTP events for the
 * same account (a load balancer in front): a signed event posted to each is taken in once,
 * because the first instance to take it marks it in Redis.
 */
import { afterEach, expect, it } from "vitest";
import { type BotHarness, startBot } from "../support/bot-harness.ts";
import { groupMessageEvent, plain, SELF } from "../support/messages.ts";
import { OneBotStandIn } from "../support/onebot-standin.ts";
import { freshPostgresUrl } from "../support/postgres-server.ts";
import { clusterConfig, freshRedis } from "../support/redis-server.ts";
import { sleep } from "../support/wait.ts";

const EVENT_PATH = "/onebot/v11/http";
const SECRET = "post-secret";
const ADMIN = "39999";

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

it("runs an admin command posted to two instances once", async () => {
  const qq = new OneBotStandIn({ selfId: SELF });
  closers.push(() => qq.close());
  const api = await qq.listenHttp();
  const [databaseUrl, redis] = await Promise.all([freshPostgresUrl(), freshRedis()]);
  const instance = async (id: string): Promise<BotHarness> => {
    const bot = await startBot({
      config: {
        storage: { url: databaseUrl },
        cluster: clusterConfig(redis, id),
        adapters: [{ id: "qq", mode: "http", url: api, path: EVENT_PATH, secret: SECRET }],
        bot: { admins: [ADMIN] },
      },
    });
    closers.push(() => bot.dispose());
    await bot.waitForLog((line) => line.msg === "onebot connection opened");
    return bot;
  };
  const a = await instance("a");
  const b = await instance("b");

  const event = groupMessageEvent(9001, ADMIN, plain("/plugins"));
  expect(await qq.postEvent(`${a.baseUrl}${EVENT_PATH}`, event, SECRET)).toBe(204);
  expect(await qq.postEvent(`${b.baseUrl}${EVENT_PATH}`, event, SECRET)).toBe(204);
  await qq.waitForSent(undefined, 10_000);
  await sleep(1_500);

  expect(qq.sent).toHaveLength(1);
  expect(b.logs.filter((line) => line.msg === "repeated message event dropped")).toHaveLength(1);
});
