/**
 * The console of any instance shows the whole cluster: every instance, the other
 * instances' live events (sent across only while a console follows: they carry prompts), and a
 * config saved on one instance (or a plugin switched by command) applied on the others.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { classPlugin, PluginSandbox } from "../plugins/plugin-fixtures.ts";
import { apiClient } from "../support/api-client.ts";
import { type BotHarness, startBot } from "../support/bot-harness.ts";
import { ALICE, mention, plain } from "../support/messages.ts";
import { OneBotStandIn } from "../support/onebot-standin.ts";
import { freshPostgresUrl } from "../support/postgres-server.ts";
import {
  ChannelRecording,
  CLUSTER_SECRET,
  clusterConfig,
  clusterKeyPrefix,
  freshRedis,
  startRedisServer,
} from "../support/redis-server.ts";
import { openSse } from "../support/sse-client.ts";
import { sleep, waitFor } from "../support/wait.ts";

const ACCOUNT = "10001";
const GROUP = "20001";
const ADMIN = "39999";
/** Short, so a closed console's "watching" lapses quickly (it is said at every heartbeat). */
const LEASE_MS = 1_500;

let a: BotHarness;
let b: BotHarness;
let qq: OneBotStandIn;
/** What crosses Redis on the live events channel. */
let carried: ChannelRecording;
const plugins = new PluginSandbox();

beforeAll(async () => {
  const [databaseUrl, redis] = await Promise.all([freshPostgresUrl(), freshRedis()]);
  carried = await ChannelRecording.start(redis.url, `${clusterKeyPrefix(redis)}:events`);
  plugins.add("hello", {
    "index.ts": classPlugin(`@Tool("hello", { description: "打招呼" }) hello() { return {}; }`),
  });
  const instance = (id: string) =>
    startBot({
      configFile: true,
      config: {
        storage: { url: databaseUrl },
        plugins: { dirs: [plugins.root] },
        bot: { admins: [ADMIN] },
        cluster: { ...clusterConfig(redis, id), leaseMs: LEASE_MS },
      },
    });
  a = await instance("a");
  b = await instance("b");
  qq = new OneBotStandIn({ selfId: ACCOUNT });
  await qq.connectReverse(a.wsUrl);
});

afterAll(async () => {
  carried?.stop();
  await qq?.close();
  await b?.dispose();
  await a?.dispose();
  plugins.remove();
});

it("lists every instance on the console of each", async () => {
  for (const bot of [a, b]) {
    const answer = await apiClient(bot.baseUrl).get("/api/cluster");
    expect(answer.status).toBe(200);
    expect(answer.body.enabled).toBe(true);
    expect(answer.body.self).toBe(bot === a ? "a" : "b");
    const instances = answer.body.instances as Array<{ id: string; address: string; pid: number }>;
    expect(instances.map((instance) => instance.id).sort()).toEqual(["a", "b"]);
    const port = (of: BotHarness) => String(new URL(of.baseUrl).port);
    expect(instances.find((instance) => instance.id === "a")?.address).toMatch(new RegExp(`:${port(a)}$`));
    expect(instances.find((instance) => instance.id === "b")?.address).toMatch(new RegExp(`:${port(b)}$`));
  }
});

it("sends events across only while another instance's console follows", async () => {
  /** A mention into A (a turn, with its prompt), once A took it in: what crossed Redis about it. */
  const said = async (text: string) => {
    carried.clear();
    const messageId = qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: mention(text, ACCOUNT) });
    await a.waitForEvent("message.ingested", (event) => event.data.messageId === messageId);
    await sleep(300);
    return { messageId, crossed: carried.messages.filter((message) => message.includes(`"${messageId}"`)) };
  };
  // No console anywhere: the message and the turn's prompt stay off Redis.
  expect((await said("没人看着")).crossed).toEqual([]);

  const onB = await openSse(`${b.baseUrl}/api/monitor/stream`, {});
  try {
    const watched = await said("有人看着");
    expect(watched.crossed.length).toBeGreaterThan(0);
    await onB.waitFor(
      (event, data) =>
        event === "monitor" &&
        (data as { data?: { messageId?: string } }).data?.messageId === watched.messageId,
    );
  } finally {
    onB.close();
  }
  // B's console closed: once its last "watching" lapsed, A keeps its events again.
  await sleep(LEASE_MS + 500);
  expect((await said("又没人看了")).crossed).toEqual([]);
});

it("opens the live timeline at once while Redis hangs, with this instance's events", async () => {
  const redis = await startRedisServer();
  const bot = await startBot({
    config: {
      storage: { url: await freshPostgresUrl() },
      cluster: { redisUrl: redis.url, secret: CLUSTER_SECRET, instanceId: "lone", keyPrefix: "hung" },
    },
  });
  const account = new OneBotStandIn({ selfId: "10009" });
  try {
    await account.connectReverse(bot.wsUrl);
    redis.pause();
    const opening = Date.now();
    const stream = await openSse(`${bot.baseUrl}/api/monitor/stream`, {});
    // Its "watching" cannot reach the others: the console does not wait for that.
    expect(Date.now() - opening).toBeLessThan(2_500);
    const messageId = account.pushGroupMessage({
      groupId: "20009",
      userId: ALICE,
      message: mention("在吗", "10009"),
    });
    await stream.waitFor(
      (event, data) =>
        event === "monitor" && (data as { data?: { messageId?: string } }).data?.messageId === messageId,
      10_000,
    );
    stream.close();
  } finally {
    redis.resume();
    await account.close();
    await bot.dispose();
    await redis.stop();
  }
}, 30_000);

it("shows an event of one instance on the live timeline of the other, stored once", async () => {
  const [onA, onB] = await Promise.all([
    openSse(`${a.baseUrl}/api/monitor/stream`, {}),
    openSse(`${b.baseUrl}/api/monitor/stream`, {}),
  ]);
  try {
    const messageId = qq.pushGroupMessage({
      groupId: GROUP,
      userId: ALICE,
      message: mention("在吗", ACCOUNT),
    });
    const about = (event: string, data: unknown) =>
      event === "monitor" && (data as { data?: { messageId?: string } }).data?.messageId === messageId;
    const shown = (await onB.waitFor(about, 10_000)) as { type: string; id: number; instance?: string };
    expect(shown).toMatchObject({ type: "message.ingested", instance: "a", id: expect.any(Number) });
    const emitted = await a.waitForEvent("message.ingested", (event) => event.data.messageId === messageId);
    expect(emitted.data.trigger).not.toBeNull();
    // A shows its own event once, untagged: what it publishes does not come back to it.
    await onA.waitFor(about);
    await sleep(200);
    const own = onA.events.filter((entry) => about(entry.event, entry.data));
    expect(own.map((entry) => entry.data)).toEqual([expect.not.objectContaining({ instance: "a" })]);
    expect((own[0]?.data as { id: number }).id).toBe(shown.id);
    // Not emitted again on B: its timeline would store a second copy of what A stored.
    expect(b.events.some((event) => event.data.messageId === messageId)).toBe(false);
  } finally {
    onA.close();
    onB.close();
  }
});

it("applies a config saved on one instance's console on the other, keeping each one's id", async () => {
  const api = apiClient(b.baseUrl);
  const current = await api.get("/api/config");
  expect(current.body.editable).toBe(true);
  const edited = parse(current.body.yaml as string) as Record<string, Record<string, unknown>>;
  edited.bot = { ...edited.bot, name: "紬二号" };
  const saved = await api.put("/api/config", { yaml: stringify(edited) });
  expect(saved.status).toBe(200);

  await waitFor(
    async () => (await apiClient(a.baseUrl).get("/api/status")).body.bot.name === "紬二号",
    10_000,
    "the config saved on B applied on A",
  );
  const fileOfA = parse(readFileSync(a.configFile as string, "utf8")) as { cluster: { instanceId: string } };
  expect(fileOfA.cluster.instanceId).toBe("a");
});

it("switches a plugin off on every instance when an admin switches it off with /plugins on one", async () => {
  const stateOn = async (bot: BotHarness) => {
    const listed = (await apiClient(bot.baseUrl).get("/api/plugins")).body.plugins as Array<{
      id: string;
      state: string;
    }>;
    return listed.find((plugin) => plugin.id === "hello")?.state;
  };
  expect([await stateOn(a), await stateOn(b)]).toEqual(["enabled", "enabled"]);

  qq.pushGroupMessage({ groupId: GROUP, userId: ADMIN, message: plain("/plugins disable hello") });
  await qq.waitForSent((sent) => String(sent.text).includes("已停用"), 10_000);

  // The command ran on one instance; the other followed.
  await waitFor(
    async () => (await stateOn(a)) === "disabled" && (await stateOn(b)) === "disabled",
    10_000,
    "hello disabled on both instances",
  );
});
