/**
 * `fetch_page` on a page an attacker wrote: 7.7 KB of 700 nested `<div>`s. Readability's cost
 * grows with the cube of the depth, and it ran on the event loop: any member asking the bot to
 * read the page froze it for about 22 s. The page is parsed in a worker thread now, its nesting
 * checked before readability reads it, the worker ended after a time limit.
 */
import { afterEach, describe, expect, it } from "vitest";
import { MAX_HTML_DEPTH } from "../../src/knowledge/html-blocks.ts";
import { type BotHarness, startBot } from "../support/bot-harness.ts";
import { watchEventLoop } from "../support/event-loop-lag.ts";
import { GROUP, mention, SELF } from "../support/messages.ts";
import { OneBotStandIn } from "../support/onebot-standin.ts";
import { type RecordedLlmRequest, ScriptedLlmServer } from "../support/scripted-llm-server.ts";
import { SearchStandIn } from "../support/search-standin.ts";

const NESTED = `<html><body>${"<div>".repeat(700)}deep${"</div>".repeat(700)}</body></html>`;
/** As deep as real pages get (a few dozen levels), with an article inside. */
const DEEP_BUT_REAL = `<html><head><title>Deep</title></head><body>${"<div>".repeat(60)}<article><h1>Deep</h1><p>${"Real text of a real article. ".repeat(20)}</p></article>${"</div>".repeat(60)}</body></html>`;

const NO_REPLY = { toolCalls: [{ name: "no_reply", arguments: { reason: "test" } }] };

let open: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of open.reverse()) await close();
  open = [];
});

async function scene(): Promise<{
  llm: ScriptedLlmServer;
  bot: BotHarness;
  qq: OneBotStandIn;
  search: SearchStandIn;
}> {
  const search = await SearchStandIn.start(() => [], { nested: NESTED, real: DEEP_BUT_REAL });
  const llm = await ScriptedLlmServer.start();
  const bot = await startBot({
    llm,
    config: { search: { provider: "searxng", url: search.baseUrl }, media: { allowPrivateNetworks: true } },
  });
  const qq = new OneBotStandIn({ selfId: SELF });
  await qq.connectReverse(bot.wsUrl);
  open.push(
    () => search.close(),
    () => llm.close(),
    () => bot.dispose(),
    () => qq.close(),
  );
  return { llm, bot, qq, search };
}

function toolResult(request: RecordedLlmRequest | undefined): unknown {
  return JSON.parse(String(request?.body.messages.findLast((message) => message.role === "tool")?.content));
}

describe("fetch_page on a page of deeply nested elements", { timeout: 60_000 }, () => {
  it("is refused for its nesting, read in a worker, the bot answering meanwhile", async () => {
    const { llm, bot, qq, search } = await scene();
    llm.enqueue(
      { toolCalls: [{ name: "fetch_page", arguments: { url: `${search.baseUrl}/pages/nested` } }] },
      NO_REPLY,
      { toolCalls: [{ name: "fetch_page", arguments: { url: `${search.baseUrl}/pages/real` } }] },
      NO_REPLY,
    );
    const watch = watchEventLoop();
    const started = performance.now();
    qq.pushGroupMessage({ groupId: GROUP, userId: "30021", card: "Bob", message: mention("read this page") });
    await bot.turnFinished(1);
    const lagMs = watch.stop();
    expect(toolResult(llm.requests[1])).toEqual({
      error: `the page cannot be read: elements nested over ${MAX_HTML_DEPTH} deep, not read`,
    });
    expect(lagMs).toBeLessThan(250);
    expect(performance.now() - started).toBeLessThan(10_000);

    qq.pushGroupMessage({ groupId: GROUP, userId: "30022", card: "Ann", message: mention("and this one") });
    await bot.turnFinished(2);
    expect(toolResult(llm.requests[3])).toMatchObject({
      title: "Deep",
      text: expect.stringContaining("Real text"),
    });
  });
});
