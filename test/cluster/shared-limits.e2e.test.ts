/**
 * Two instances over one PostgreSQL database and one Redis, each holding one QQ account's
 * connection: a user's turns per minute are counted for the cluster, so asking
 * through the other account does not give them a second allowance.
 */
import { Redis } from "ioredis";
import { afterEach, expect, it } from "vitest";
import { type BotHarness, startBot } from "../support/bot-harness.ts";
import { ALICE, mention } from "../support/messages.ts";
import { OneBotStandIn } from "../support/onebot-standin.ts";
import { freshPostgresUrl } from "../support/postgres-server.ts";
import { clusterConfig, clusterKeyPrefix, freshRedis } from "../support/redis-server.ts";
import { type RecordedLlmRequest, ScriptedLlmServer } from "../support/scripted-llm-server.ts";
import { waitFor } from "../support/wait.ts";

const TOO_FAST = "说得太快了，稍后再试。";

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** Every addressed message gets a reply: the planner calls `reply`, the replyer says 好的. */
const model = async (request: RecordedLlmRequest) =>
  request.toolNames.includes("reply") ? { toolCalls: [{ name: "reply", arguments: {} }] } : { text: "好的" };

it("refuses a user over their turns per minute counted across two instances", async () => {
  const llm = await ScriptedLlmServer.start({ whenEmpty: model });
  closers.push(() => llm.close());
  const [databaseUrl, redis] = await Promise.all([freshPostgresUrl(), freshRedis()]);
  const instance = async (id: string, account: string) => {
    const bot: BotHarness = await startBot({
      llm,
      config: {
        storage: { url: databaseUrl },
        cluster: clusterConfig(redis, id),
        limits: { userTurnsPerMinute: 2 },
      },
    });
    closers.push(() => bot.dispose());
    const qq = new OneBotStandIn({ selfId: account });
    await qq.connectReverse(bot.wsUrl);
    closers.push(() => qq.close());
    return {
      bot,
      qq,
      ask: (group: string) =>
        qq.pushGroupMessage({ groupId: group, userId: ALICE, message: mention("问个事", account) }),
    };
  };
  const a = await instance("a", "10001");
  const b = await instance("b", "10002");

  a.ask("20001");
  await a.qq.waitForSent((sent) => sent.text === "好的", 10_000);
  b.ask("20002");
  await b.qq.waitForSent((sent) => sent.text === "好的", 10_000);
  // Each instance has run one of Alice's turns: alone, neither would be at her limit of two.
  a.ask("20001");
  await a.qq.waitForSent((sent) => sent.text === TOO_FAST, 10_000);

  expect(a.qq.sent.map((sent) => sent.text)).toEqual(["好的", TOO_FAST]);
  expect(b.qq.sent.map((sent) => sent.text)).toEqual(["好的"]);
  expect(a.bot.events.find((event) => event.type === "limit.reached")?.data).toMatchObject({
    limit: "userTurnsPerMinute",
    subject: `onebot:${ALICE}`,
    value: 2,
    max: 2,
  });
  expect(b.bot.events.filter((event) => event.type === "turn.started")).toHaveLength(1);

  // Answered and refused alike, no trigger is left for another instance to answer if one dies.
  const redisClient = new Redis(redis.url);
  closers.push(async () => redisClient.disconnect());
  const prefix = clusterKeyPrefix(redis);
  await waitFor(
    async () =>
      (await redisClient.hlen(`${prefix}:pending:a`)) + (await redisClient.hlen(`${prefix}:pending:b`)) === 0,
    5_000,
    "no trigger left pending",
  );
});
