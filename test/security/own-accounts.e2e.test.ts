/**
 * Two accounts of the same bot in one group: what one of them says reaches the other as an
 * ordinary member's message. It is kept as history there, but never triggers a turn, so the
 * two never answer each other.
 */
import { afterEach, describe, expect, it } from "vitest";
import { startBot, storedRows } from "../support/bot-harness.ts";
import { ALICE, GROUP, groupSession, mention } from "../support/messages.ts";
import { OneBotStandIn } from "../support/onebot-standin.ts";
import { ScriptedLlmServer } from "../support/scripted-llm-server.ts";
import { sleep, waitFor } from "../support/wait.ts";

const FIRST = "10000";
const SECOND = "10001";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe("two accounts of the bot in one group", () => {
  it("never trigger each other; what one says is history for the other", async () => {
    const llm = await ScriptedLlmServer.start();
    const bot = await startBot({ llm });
    const first = new OneBotStandIn({ selfId: FIRST });
    const second = new OneBotStandIn({ selfId: SECOND });
    cleanups.push(
      () => llm.close(),
      () => bot.dispose(),
      () => first.close(),
      () => second.close(),
    );
    await first.connectReverse(bot.wsUrl);
    await second.connectReverse(bot.wsUrl);

    // Alice asks the first account; QQ shows her message to both.
    llm.enqueue({ toolCalls: [{ name: "reply", arguments: {} }] }, { text: "问问另一个号吧" });
    first.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: mention("你好", FIRST) });
    second.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: mention("你好", FIRST) });
    const said = await first.waitForSent(undefined, 8_000);
    await bot.turnFinished(1);

    // The second account sees the first one's answer as a group member's message that
    // mentions it and says the bot's name: it would trigger it, were it from anyone else.
    const seenBySecond = second.pushGroupMessage({
      groupId: GROUP,
      userId: FIRST,
      message: mention(`${said.text} 紬`, SECOND),
    });
    await sleep(1_500);

    expect(bot.events.filter((event) => event.type === "turn.started")).toHaveLength(1);
    expect(second.sent).toEqual([]);
    expect(llm.unscriptedRequests).toEqual([]);
    await waitFor(async () => (await storedFrom(bot.dataDir, SECOND)).some((row) => row.user_id === FIRST));
    const kept = (await storedFrom(bot.dataDir, SECOND)).find((row) => row.user_id === FIRST)!;
    expect(Boolean(kept.from_self)).toBe(true);

    // Alice quotes the first account's answer: a reply to that account, not to the second.
    llm.enqueue({ toolCalls: [{ name: "reply", arguments: {} }] }, { text: "对" });
    const quoting = (id: string | number) => [
      { type: "reply", data: { id: String(id) } },
      { type: "text", data: { text: "真的吗" } },
    ];
    first.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: quoting(said.messageId) });
    second.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: quoting(seenBySecond) });
    await first.waitForSent((sent) => sent.text === "对", 8_000);
    await sleep(1_000);
    expect(bot.events.filter((event) => event.type === "turn.started")).toHaveLength(2);
    expect(second.sent).toEqual([]);

    // A member mentioning the second account is still answered by it.
    llm.enqueue({ toolCalls: [{ name: "reply", arguments: {} }] }, { text: "我在" });
    second.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: mention("你呢", SECOND) });
    expect((await second.waitForSent(undefined, 8_000)).text).toBe("我在");
  });
});

async function storedFrom(
  dataDir: string,
  selfId: string,
): Promise<Array<{ user_id: string; from_self: unknown }>> {
  return storedRows(
    dataDir,
    `SELECT user_id, from_self FROM messages WHERE session_id = '${groupSession(GROUP, selfId)}' ORDER BY id`,
  );
}
