/**
 * The same message event delivered again — replayed by whoever holds a signed HTTP event, sent
 * twice over a WebSocket — is taken in once: one command run, one turn, one reply. Also after
 * a restart, when only the message store remembers it.
 */
import { afterEach, describe, expect, it } from "vitest";
import { type BotHarness, startBot } from "../support/bot-harness.ts";
import { GROUP, groupSession, mention, SELF } from "../support/messages.ts";
import { OneBotStandIn } from "../support/onebot-standin.ts";
import { ScriptedLlmServer } from "../support/scripted-llm-server.ts";
import { sleep } from "../support/wait.ts";

const EVENT_PATH = "/onebot/v11/http";
const SECRET = "post-secret";
const ADMIN = "39999";
const ALICE = "30001";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A group message event as NapCat sends it, dated `ageMs` ago. */
function groupEvent(messageId: number, userId: string, message: unknown[], ageMs = 0): string {
  return JSON.stringify({
    time: Math.floor((Date.now() - ageMs) / 1000),
    self_id: Number(SELF),
    post_type: "message",
    message_type: "group",
    sub_type: "normal",
    message_id: messageId,
    group_id: Number(GROUP),
    user_id: Number(userId),
    message,
    raw_message: "",
    font: 0,
    sender: { user_id: Number(userId), nickname: `user${userId}`, card: "", role: "owner" },
  });
}

const ADMIN_COMMAND = [{ type: "text", data: { text: "/plugins" } }];

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

    const event = groupEvent(8001, ADMIN, ADMIN_COMMAND);
    for (let post = 0; post < 3; post++) expect(await qq.postEvent(url, event, SECRET)).toBe(204);
    await qq.waitForSent(undefined, 8_000);
    await sleep(500);

    expect(qq.sent).toHaveLength(1);
    expect(dropped(bot)).toBe(2);
    expect(bot.logs.filter((line) => line.msg === "message received")).toHaveLength(1);
  });

  it("starts one turn for a WebSocket event delivered twice, with one reply", async () => {
    const llm = await ScriptedLlmServer.start();
    const bot = await startBot({ llm });
    const qq = new OneBotStandIn({ selfId: SELF });
    cleanups.push(
      () => llm.close(),
      () => bot.dispose(),
      () => qq.close(),
    );
    await qq.connectReverse(bot.wsUrl);
    llm.enqueue({ toolCalls: [{ name: "reply", arguments: {} }] }, { text: "只回答一次" });

    const event = groupEvent(8101, ALICE, mention("在吗"));
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
    const event = groupEvent(8201, ADMIN, ADMIN_COMMAND, 5_000);
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
      await again.postEvent(`${second.baseUrl}${EVENT_PATH}`, groupEvent(8202, ADMIN, ADMIN_COMMAND), SECRET),
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
