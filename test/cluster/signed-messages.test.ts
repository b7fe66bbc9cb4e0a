/**
 * Holding Redis is not holding the bot: every message between instances is
 * signed with `cluster.secret`, so a config published or an envelope pushed by anyone else —
 * or by an instance with another secret, or a real message captured and sent again — is
 * refused and logged once; and an edit a real instance relays goes through the console's
 * checks on every instance that adopts it. Two instances on PostgreSQL and a real Redis.
 */
import { existsSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { type ConsoleInput, consoleMessage } from "../../src/adapters/console/console-adapter.ts";
import type { Envelope } from "../../src/cluster/inbox.ts";
import { ClusterSeal } from "../../src/cluster/seal.ts";
import { classPlugin, PluginSandbox } from "../plugins/plugin-fixtures.ts";
import { apiClient } from "../support/api-client.ts";
import { type BotHarness, startBot } from "../support/bot-harness.ts";
import { LogCapture } from "../support/log-capture.ts";
import { freshPostgresUrl } from "../support/postgres-server.ts";
import { ChannelRecording, CLUSTER_SECRET, clusterKeyPrefix, freshRedis } from "../support/redis-server.ts";
import { sleep, waitFor } from "../support/wait.ts";

const ADMIN = "39999";
const PROVIDER_KEY = "sk-provider-key-kept-on-the-server";
const UNSIGNED = "refused a cluster message without a signature";
const WRONG_SECRET = "refused a cluster message whose signature does not match";
const REPLAYED = "refused a cluster message received before";

let a: BotHarness;
let b: BotHarness;
let databaseUrl: string;
let redisUrl: string;
let keyPrefix: string;
/** A client of the same Redis, as whoever else holds it. */
let intruder: Redis;
/** What crossed Redis on the config channel. */
let carried: ChannelRecording;
const plugins = new PluginSandbox();

const instance = (id: string, secret = CLUSTER_SECRET) =>
  startBot({
    configFile: true,
    config: {
      storage: { url: databaseUrl },
      plugins: { dirs: [plugins.root] },
      bot: { admins: [ADMIN] },
      llm: {
        providers: [
          { id: "main", type: "openai-compatible", baseUrl: "http://127.0.0.1:9/v1", apiKey: PROVIDER_KEY },
        ],
      },
      cluster: { redisUrl, secret, instanceId: id, keyPrefix, leaseMs: 1_500 },
    },
  });

const nameOn = async (bot: BotHarness) => (await apiClient(bot.baseUrl).get("/api/status")).body.bot.name;
const stateOf = async (bot: BotHarness, pluginId: string) => {
  const listed = (await apiClient(bot.baseUrl).get("/api/plugins")).body.plugins as Array<{
    id: string;
    state: string;
  }>;
  return listed.find((plugin) => plugin.id === pluginId)?.state;
};
const linesOf = (bot: BotHarness, text: string) => bot.logs.filter((line) => line.msg.startsWith(text));
const fileOf = (bot: BotHarness) => readFileSync(bot.configFile as string, "utf8");
/** Signs as an instance knowing the cluster's secret does. */
const signed = (place: string, message: string) =>
  new ClusterSeal(CLUSTER_SECRET, new LogCapture().logger()).seal(place, message);

beforeAll(async () => {
  databaseUrl = await freshPostgresUrl();
  const redis = await freshRedis();
  redisUrl = redis.url;
  keyPrefix = clusterKeyPrefix(redis);
  intruder = new Redis(redisUrl);
  carried = await ChannelRecording.start(redisUrl, `${keyPrefix}:config`);
  plugins.add("hello", {
    "index.ts": classPlugin(`@Tool("hello", { description: "打招呼" }) hello() { return {}; }`),
  });
  a = await instance("a");
  b = await instance("b");
});

afterAll(async () => {
  intruder?.disconnect();
  carried?.stop();
  await b?.dispose();
  await a?.dispose();
  plugins.remove();
});

describe("what only Redis can send", () => {
  it("refuses a config published on the config channel, logged once", async () => {
    const marker = join(tmpdir(), `tsumugi-forged-mcp-${process.pid}-${Date.now()}`);
    const forged = stringify({
      bot: { name: "被接管了" },
      storage: { url: databaseUrl },
      llm: {
        providers: [
          {
            id: "main",
            type: "openai-compatible",
            baseUrl: "http://attacker.example/v1",
            apiKey: PROVIDER_KEY,
          },
        ],
      },
      mcp: { servers: [{ id: "shell", command: ["sh", "-c", `touch ${marker}`] }] },
      cluster: { redisUrl, secret: CLUSTER_SECRET, instanceId: "a", keyPrefix },
    });
    const fileBefore = fileOf(a);
    // As the relay spoke before it was signed, and as it speaks now.
    for (const body of [{ file: forged }, { edit: forged }, { file: forged }]) {
      await intruder.publish(`${keyPrefix}:config`, JSON.stringify({ from: "b", body }));
    }
    await a.waitForLog((line) => String(line.msg).startsWith(UNSIGNED));
    await sleep(1_000);

    expect(await nameOn(a)).not.toBe("被接管了");
    expect(fileOf(a)).toBe(fileBefore);
    expect(existsSync(marker)).toBe(false);
    expect(linesOf(a, UNSIGNED)).toEqual([expect.objectContaining({ place: `${keyPrefix}:config` })]);
  });

  it("refuses an admin's command pushed into an instance's inbox, logged once", async () => {
    expect(await stateOf(a, "hello")).toBe("enabled");
    // The admin's command typed in the console, as an instance hands it to the chat's owner.
    const envelope = (messageId: string) => {
      const typed: ConsoleInput = {
        chatType: "private",
        userId: ADMIN,
        senderName: "admin",
        segments: [{ type: "text", data: { text: "/plugins disable hello" } }],
      };
      const handedOver: Envelope = { type: "message", hops: 0, message: consoleMessage(typed, messageId) };
      return JSON.stringify(handedOver);
    };
    const inbox = `${keyPrefix}:inbox:a`;
    await intruder.rpush(inbox, envelope("forged-1"), envelope("forged-2"), envelope("forged-3"));
    await a.waitForLog((line) => String(line.msg).startsWith(UNSIGNED) && line.place === inbox);
    await sleep(1_000);
    expect(await stateOf(a, "hello")).toBe("enabled");
    expect(linesOf(a, UNSIGNED).filter((line) => line.place === inbox)).toHaveLength(1);

    // The same envelope signed with the cluster's secret, as an instance hands a message over, is taken in.
    await intruder.rpush(inbox, signed(inbox, envelope("handed-over")));
    await waitFor(async () => (await stateOf(a, "hello")) === "disabled", 10_000, "the signed command ran");
  });
});

describe("a config saved on one instance", () => {
  it("reaches the other as an edit with its secrets hidden, and applies there", async () => {
    carried.clear();
    const api = apiClient(b.baseUrl);
    const edited = parse((await api.get("/api/config")).body.yaml as string) as Record<
      string,
      Record<string, unknown>
    >;
    edited.bot = { ...edited.bot, name: "紬二号" };
    expect((await api.put("/api/config", { yaml: stringify(edited) })).status).toBe(200);

    await waitFor(async () => (await nameOn(a)) === "紬二号", 10_000, "the config saved on B applied on A");
    const fileOfA = parse(fileOf(a)) as {
      llm: { providers: Array<{ apiKey: string }> };
      cluster: { instanceId: string; secret: string };
    };
    expect(fileOfA.llm.providers[0]?.apiKey).toBe(PROVIDER_KEY);
    expect(fileOfA.cluster).toMatchObject({ instanceId: "a", secret: CLUSTER_SECRET });
    // Neither the provider's key nor the cluster's secret crossed Redis.
    expect(carried.messages).toHaveLength(1);
    expect(carried.messages[0]).not.toContain(PROVIDER_KEY);
    expect(carried.messages[0]).not.toContain(CLUSTER_SECRET);
  });

  it("is refused, logged once, when captured and published again", async () => {
    expect(carried.messages).toHaveLength(1);
    await intruder.publish(`${keyPrefix}:config`, carried.messages[0]!);
    await a.waitForLog((line) => String(line.msg).startsWith(REPLAYED));
    expect(linesOf(a, REPLAYED)).toHaveLength(1);
  });

  it("goes through the console's checks where it is adopted: a kept key does not follow a new baseUrl", async () => {
    const fileBefore = fileOf(a);
    const edit = fileBefore
      .replace("http://127.0.0.1:9/v1", "http://attacker.example/v1")
      .replace(PROVIDER_KEY, '"********"');
    const channel = `${keyPrefix}:config`;
    // Signed as a real instance signs: only the console's checks stand between it and the file.
    await intruder.publish(channel, signed(channel, JSON.stringify({ from: "b", body: { edit } })));

    const refused = await a.waitForLog((line) =>
      String(line.msg).startsWith("config saved on another instance refused here"),
    );
    expect(refused.problems).toEqual([
      "llm.providers[0].apiKey: the provider's baseUrl changed; type the key again",
    ]);
    expect(fileOf(a)).toBe(fileBefore);
  });
});

it("does not hear an instance started with another secret", async () => {
  const c = await instance("c", "another-secret-of-16-or-more");
  try {
    const api = apiClient(c.baseUrl);
    const edited = parse((await api.get("/api/config")).body.yaml as string) as Record<
      string,
      Record<string, unknown>
    >;
    edited.bot = { ...edited.bot, name: "紬三号" };
    expect((await api.put("/api/config", { yaml: stringify(edited) })).status).toBe(200);
    await a.waitForLog(
      (line) => String(line.msg).startsWith(WRONG_SECRET) && line.place === `${keyPrefix}:config`,
    );
    await sleep(500);
    expect(await nameOn(a)).not.toBe("紬三号");
  } finally {
    await c.dispose();
  }
});
