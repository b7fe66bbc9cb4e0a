/**
 * Forward-ws accounts in a cluster: the bot dials the implementation, so exactly one
 * instance may dial each account. Two instances share four accounts by lease (two each); when
 * one is SIGKILLed the other dials its accounts within seconds, and every mention on every
 * account is answered exactly once throughout.
 */
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BotProcess, startBotProcess } from "../support/bot-process.ts";
import { mention } from "../support/messages.ts";
import { OneBotStandIn } from "../support/onebot-standin.ts";
import { freshPostgresUrl } from "../support/postgres-server.ts";
import { CLUSTER_SECRET, freshRedis } from "../support/redis-server.ts";
import { ScriptedLlmServer } from "../support/scripted-llm-server.ts";
import { sleep, waitFor } from "../support/wait.ts";

const ACCOUNTS = ["10001", "10002", "10003", "10004"];
const LEASE_MS = 1_500;

describe("forward-ws accounts dialled by lease", () => {
  let llm: ScriptedLlmServer;
  const bots: BotProcess[] = [];
  const qq = new Map<string, OneBotStandIn>();
  const urls = new Map<string, string>();
  const replies = new Map<string, number>();
  let nextGroup = 21_000;
  const shared: { redis?: Redis; keyPrefix?: string } = {};
  /** Which instance holds each adapter's dial lease. */
  const dialHolders = () =>
    Promise.all(ACCOUNTS.map((account) => shared.redis!.get(`${shared.keyPrefix}:dial:qq${account}`)));

  /** Mentions the bot in a new group of every account; resolves when each got its answer. */
  const roundOfMentions = async () => {
    const groups = ACCOUNTS.map((account) => {
      const group = String(nextGroup++);
      replies.set(group, 0);
      qq.get(account)!.pushGroupMessage({
        groupId: group,
        userId: "30001",
        message: mention("在吗", account),
      });
      return group;
    });
    await waitFor(() => groups.every((group) => (replies.get(group) ?? 0) >= 1), 20_000);
  };
  beforeAll(async () => {
    llm = await ScriptedLlmServer.start({
      whenEmpty: (request) =>
        request.toolNames.includes("reply")
          ? { toolCalls: [{ name: "reply", arguments: {} }] }
          : { text: "在" },
    });
    for (const account of ACCOUNTS) {
      const standIn = new OneBotStandIn({ selfId: account });
      standIn.onSent((sent) => {
        if (sent.groupId) replies.set(sent.groupId, (replies.get(sent.groupId) ?? 0) + 1);
      });
      qq.set(account, standIn);
      urls.set(account, await standIn.listenForward());
    }
    const databaseUrl = await freshPostgresUrl();
    const target = await freshRedis();
    const keyPrefix = target.keyPrefix.replace(/:$/, "");
    shared.redis = new Redis(target.url);
    shared.keyPrefix = keyPrefix;
    const config = (instanceId: string) => ({
      storage: { url: databaseUrl },
      cluster: {
        redisUrl: target.url,
        secret: CLUSTER_SECRET,
        instanceId,
        leaseMs: LEASE_MS,
        keyPrefix,
      },
      adapters: ACCOUNTS.map((account) => ({
        type: "onebot",
        id: `qq${account}`,
        mode: "forward-ws",
        url: urls.get(account),
        reconnect: { minDelayMs: 200, maxDelayMs: 1_000 },
      })),
    });
    bots.push(...(await Promise.all(["a", "b"].map((id) => startBotProcess({ llm, config: config(id) })))));
  }, 60_000);

  afterAll(async () => {
    for (const standIn of qq.values()) await standIn.close();
    await Promise.all(bots.map((bot) => bot.dispose()));
    shared.redis?.disconnect();
    await llm?.close();
  });

  it("spreads the accounts, never dials one twice, and takes a dead instance's accounts over", async () => {
    const [a] = bots as [BotProcess, BotProcess];
    // Each dials two: whichever started first took all four, then handed two to the other.
    const split = async () => {
      const holders = await dialHolders();
      return (
        holders.filter((holder) => holder === "a").length === 2 &&
        holders.filter((holder) => holder === "b").length === 2
      );
    };
    await waitFor(
      async () => (await split()) && [...qq.values()].every((standIn) => standIn.sockets().length === 1),
      15_000,
    );
    await sleep(LEASE_MS); // a second dialler or more churn would show by now
    expect(await split()).toBe(true);
    for (const standIn of qq.values()) expect(standIn.sockets()).toHaveLength(1);
    await roundOfMentions();

    const killedAt = Date.now();
    await a.kill("SIGKILL");
    await waitFor(async () => (await dialHolders()).every((holder) => holder === "b"), 10_000);
    await waitFor(() => [...qq.values()].every((standIn) => standIn.sockets().length === 1), 10_000);
    await roundOfMentions();
    expect(Date.now() - killedAt).toBeLessThan(10_000);

    await sleep(LEASE_MS);
    for (const [group, count] of replies) expect({ group, count }).toEqual({ group, count: 1 });
  }, 60_000);
});
