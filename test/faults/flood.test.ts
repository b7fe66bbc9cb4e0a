import { afterEach, describe, expect, it } from "vitest";
import type { StoredMonitorEvent } from "../../src/monitor/event-store.ts";
import type { StoredMessage } from "../../src/store/types.ts";
import { type BotHarness, startBot } from "../support/bot-harness.ts";
import { ALICE, BOB, GROUP, mention, SELF } from "../support/messages.ts";
import { OneBotStandIn } from "../support/onebot-standin.ts";
import { ScriptedLlmServer } from "../support/scripted-llm-server.ts";
import { waitFor } from "../support/wait.ts";

const FLOOD = 300;
const MAX_TURN_CHARS = 8_000;

let llm: ScriptedLlmServer;
let bot: BotHarness;
let qq: OneBotStandIn;

afterEach(async () => {
  await qq?.close();
  await bot?.dispose();
  await llm?.close();
});

async function api<T>(path: string): Promise<T> {
  const response = await fetch(`${bot.baseUrl}${path}`);
  expect(response.status).toBe(200);
  return (await response.json()) as T;
}

describe("a flood while the model is thinking", () => {
  it("keeps the next prompt within its budget and the other member in it, stores everything, answers once", async () => {
    llm = await ScriptedLlmServer.start();
    // windowMs 0: every trigger becomes a batch of its own at once, the most merging a busy session can see.
    bot = await startBot({ llm, config: { chat: { realtime: { windowMs: 0 } } } });
    qq = new OneBotStandIn({ selfId: SELF });
    await qq.connectReverse(bot.wsUrl);

    let floodIn = () => {};
    const floodArrived = new Promise<void>((resolve) => {
      floodIn = resolve;
    });
    llm.enqueue(
      // The slow first round: it answers only once the whole flood has arrived.
      async () => {
        await floodArrived;
        return { toolCalls: [{ name: "no_reply", arguments: { reason: "还在想" } }] };
      },
      { toolCalls: [{ name: "reply", arguments: {} }] },
      { text: "一起回答" },
    );

    const push = (userId: string, text: string) =>
      qq.pushGroupMessage({
        groupId: GROUP,
        userId,
        nickname: userId === BOB ? "Bob" : "Alice",
        message: mention(text),
      });
    const first = push(ALICE, "第一个问题");
    await waitFor(() => llm.requests.length === 1, 10_000, "the first planner request");

    const flood: string[] = [];
    for (let i = 0; i < FLOOD; i++) {
      if (i === FLOOD / 2) flood.push(push(BOB, "Bob 的正经问题"));
      flood.push(push(ALICE, `刷屏 ${i} ${"啊".repeat(2_000)}`));
    }
    const bobId = flood[FLOOD / 2]!;
    const received = () =>
      new Set(bot.events.filter((e) => e.type === "message.ingested").map((e) => e.data.messageId));
    await waitFor(
      () => flood.every((id) => received().has(id)),
      10_000,
      "every flood message to be received",
    );
    floodIn();

    await qq.waitForSent(undefined, 10_000);
    expect((await bot.turnFinished()).data.status).toBe("replied");

    // The planner planned again with what arrived meanwhile: that prompt stays within the budget.
    const planner = llm.requestsWithTool("reply");
    expect(planner).toHaveLength(2);
    const [before, after] = planner.map((request) => request.promptText);
    expect(after!.length).toBeLessThan(before!.length + 2 * MAX_TURN_CHARS);
    expect(after).toContain("Bob(30002): Bob 的正经问题");
    expect(after).toMatch(/（另有 \d+ 条较早的新消息因过多未列出）/);

    // Every accepted message is stored.
    const { messages } = await api<{ messages: StoredMessage[] }>("/api/chats/messages?limit=500");
    const stored = new Set(messages.filter((m) => !m.fromSelf).map((m) => m.messageId));
    for (const id of [first, ...flood]) expect(stored.has(id), `message ${id} stored`).toBe(true);

    // Every trigger is either in the prompt the turn answered or recorded as left out of it.
    const { events } = await api<{ events: StoredMonitorEvent[] }>("/api/monitor/events?limit=500");
    const leftOut = new Set(
      events.filter((e) => e.type === "batch.trimmed").flatMap((e) => e.data.triggerIds as string[]),
    );
    expect(leftOut.size).toBeGreaterThan(0);
    expect(leftOut.has(bobId)).toBe(false);
    for (const id of flood) {
      expect(after!.includes(`[msg_id=${id}]`) || leftOut.has(id), `trigger ${id} answered or recorded`).toBe(
        true,
      );
    }
    expect(bot.logs.some((l) => l.msg?.toString().startsWith("too many messages for one turn"))).toBe(true);

    // One answer for all of them.
    expect(qq.sent.map((s) => s.text)).toEqual(["一起回答"]);
    expect(llm.unscriptedRequests).toEqual([]);
  });
});
