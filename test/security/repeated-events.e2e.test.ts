/**
 * The same message event delivered again — replayed by whoever holds a signed HTTP event, sent
 * twice over a WebSocket — is taken in once: one command run, one turn, one reply. Also after
 * a restart, when only the message store remembers it.
 */
import { afterEach, describe, expect, it } from "vitest";
import { type BotHarness, startBot } from "../support/bot-harness.ts";
import { ALICE, groupMessageEvent, groupSession, mention, plain, SELF } from "../support/messages.ts";
import { OneBotStandIn } from "../support/onebot-standin.ts";
import { startScene } from "../support/scene.ts";
import { sleep } from "../support/wait.ts";

const EVENT_PATH = "/onebot/v11/http";
const SECRET = "post-secret";
const ADMIN = "39999";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const ADMIN_COMMAND = plain("/plugins");

function dropped(bot: BotHarness): number {
  return bot.logs.filter((line) => line.msg === "repeated message event dropped").length;
}

async function startHttpBot(qq: OneBotStandIn, dataDir?: string): Promise<BotHarness> {
  const api = await qq.listenHttp();
  const bot = await startBot({
    config: {
      adapters: [{ id: "qq", mode: "http", url: api, path: EVENT_PATH, secret: SECRET }],
      bot: { admins: [ADMIN] },
    },
    ...(dataDir === undefined ? {} : { dataDir }),
  });
  await bot.waitForLog((line) => line.msg === "onebot connection opened");
  return bot;
}

describe("a repeated message event", () => {
  it("runs a signed HTTP admin command posted three times once (one reply)", async () => {
    const qq = new OneBotStandIn({ selfId: SELF });
    cleanups.push(() => qq.close());
    const bot = await startHttpBot(qq);
    cleanups.push(() => bot.dispose());
    const url = `${bot.baseUrl}${EVENT_PATH}`;

    const event = groupMessageEvent(8001, ADMIN, ADMIN_COMMAND);
    for (let post = 0; post < 3; post++) expect(await qq.postEvent(url, event, SECRET)).toBe(204);
    await qq.waitForSent(undefined, 8_000);
    await sleep(500);

    expect(qq.sent).toHaveLength(1);
    expect(dropped(bot)).toBe(2);
    expect(bot.logs.filter((line) => line.msg === "message received")).toHaveLength(1);
  });

  it("starts one turn for a WebSocket event delivered twice, with one reply", async () => {
    const { llm, bot, qq, close } = await startScene();
    cleanups.push(close);
    llm.enqueue({ toolCalls: [{ name: "reply", arguments: {} }] }, { text: "只回答一次" });

    const event = groupMessageEvent(8101, ALICE, mention("在吗"));
    qq.pushRaw(event);
    await qq.waitForSent(undefined, 8_000);
    expect((await bot.turnFinished(1)).data.status).toBe("replied");
    // Again once the turn is over (a copy right behind it would only join the same batch).
    qq.pushRaw(event);
    await sleep(1_500);

    expect(bot.events.filter((event) => event.type === "turn.started")).toHaveLength(1);
    expect(qq.sent.map((sent) => sent.text)).toEqual(["只回答一次"]);
    expect(dropped(bot)).toBe(1);
    expect(llm.unscriptedRequests).toEqual([]);
  });

  it("is dropped after a restart too, found in the message store", async () => {
    const qq = new OneBotStandIn({ selfId: SELF });
    cleanups.push(() => qq.close());
    const first = await startHttpBot(qq);
    cleanups.push(() => first.dispose());
    const event = groupMessageEvent(8201, ADMIN, ADMIN_COMMAND, 5_000);
    expect(await qq.postEvent(`${first.baseUrl}${EVENT_PATH}`, event, SECRET)).toBe(204);
    await qq.waitForSent(undefined, 8_000);
    await first.stop();
    await qq.close();

    const again = new OneBotStandIn({ selfId: SELF });
    cleanups.push(() => again.close());
    const second = await startHttpBot(again, first.dataDir);
    cleanups.push(() => second.dispose());
    expect(await again.postEvent(`${second.baseUrl}${EVENT_PATH}`, event, SECRET)).toBe(204);
    // A new message afterwards is answered, so the replay had its chance to be.
    expect(
      await again.postEvent(
        `${second.baseUrl}${EVENT_PATH}`,
        groupMessageEvent(8202, ADMIN, ADMIN_COMMAND),
        SECRET,
      ),
    ).toBe(204);
    await again.waitForSent(undefined, 8_000);
    await sleep(500);

    expect(again.sent).toHaveLength(1);
    expect(dropped(second)).toBe(1);
    expect(second.logs.filter((line) => line.msg === "message received")).toEqual([
      expect.objectContaining({ sessionId: groupSession(), messageId: "8202" }),
    ]);
  });
});
