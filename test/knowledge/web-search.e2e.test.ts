import { afterEach, describe, expect, it } from "vitest";
import { configJsonSchema } from "../../src/config/schema.ts";
import { secretPatterns } from "../../src/schema/secret-paths.ts";
import { type BotHarness, startBot } from "../support/bot-harness.ts";
import { GROUP, mention, SELF } from "../support/messages.ts";
import { OneBotStandIn } from "../support/onebot-standin.ts";
import { type RecordedLlmRequest, ScriptedLlmServer } from "../support/scripted-llm-server.ts";
import { SearchStandIn } from "../support/search-standin.ts";

const NO_REPLY = { toolCalls: [{ name: "no_reply", arguments: { reason: "test" } }] };

const ARTICLE = `<!doctype html><html><head><title>Tsumugi weaving</title></head><body>
<nav><a href="/">Home</a> · <a href="/about">About</a></nav>
<article><h1>Tsumugi weaving</h1>
<p>Tsumugi is a silk fabric woven from hand-spun floss silk, prized for its slightly uneven texture.</p>
<p>The Yuki region has made it for about thirteen centuries, and its method is an intangible cultural property.</p>
</article><footer>Copyright and cookie notice</footer></body></html>`;

interface Scene {
  llm: ScriptedLlmServer;
  bot: BotHarness;
  qq: OneBotStandIn;
  search: SearchStandIn;
}

const open: Scene[] = [];

afterEach(async () => {
  for (const s of open.splice(0)) {
    await s.qq.close();
    await s.bot.dispose();
    await s.llm.close();
    await s.search.close();
  }
});

async function scene(config: (search: SearchStandIn) => Record<string, unknown>): Promise<Scene> {
  const search = await SearchStandIn.start(
    (query) => [
      {
        title: `<b>Tsumugi</b> — ${query}`,
        url: `${search.baseUrl}/pages/tsumugi`,
        content: "A <strong>silk</strong> fabric &amp; its history",
      },
      { title: "Not a web link", url: "javascript:alert(1)", content: "" },
    ],
    { tsumugi: ARTICLE },
  );
  const llm = await ScriptedLlmServer.start();
  const bot = await startBot({ llm, config: config(search) });
  const qq = new OneBotStandIn({ selfId: SELF });
  await qq.connectReverse(bot.wsUrl);
  const opened = { llm, bot, qq, search };
  open.push(opened);
  return opened;
}

function toolResult(request: RecordedLlmRequest | undefined): unknown {
  return JSON.parse(String(request?.body.messages.findLast((message) => message.role === "tool")?.content));
}

function ask(qq: OneBotStandIn, text: string): void {
  qq.pushGroupMessage({ groupId: GROUP, userId: "30021", card: "Bob", message: mention(text) });
}

describe("web search", () => {
  it("answers web_search through a SearXNG-compatible server, and fetch_page reads a result's main text", async () => {
    const { llm, bot, qq, search } = await scene((stand) => ({
      search: { provider: "searxng", url: stand.baseUrl },
      // The stand-in is on loopback: fetch_page may reach it only with this switch.
      media: { allowPrivateNetworks: true },
    }));
    llm.enqueue(
      { toolCalls: [{ name: "web_search", arguments: { query: "what is tsumugi silk" } }] },
      { toolCalls: [{ name: "fetch_page", arguments: { url: `${search.baseUrl}/pages/tsumugi` } }] },
      NO_REPLY,
    );
    ask(qq, "what is tsumugi?");
    await bot.turnFinished(1);
    expect(llm.requests[0]!.toolNames).toEqual(expect.arrayContaining(["web_search", "fetch_page"]));
    expect(search.queries).toEqual(["what is tsumugi silk"]);
    expect(toolResult(llm.requests[1])).toEqual({
      results: [
        {
          title: "Tsumugi — what is tsumugi silk",
          link: `${search.baseUrl}/pages/tsumugi`,
          snippet: "A silk fabric & its history",
        },
      ],
    });
    const page = toolResult(llm.requests[2]) as { title: string; text: string };
    expect(page.title).toBe("Tsumugi weaving");
    expect(page.text).toContain("woven from hand-spun floss silk");
    expect(page.text).toContain("thirteen centuries");
    expect(page.text).not.toContain("cookie notice");
  });

  it("fetch_page refuses a loopback page by default, and no search tool is offered without a provider", async () => {
    const { llm, bot, qq, search } = await scene((stand) => ({
      search: { provider: "searxng", url: stand.baseUrl },
    }));
    llm.enqueue(
      { toolCalls: [{ name: "fetch_page", arguments: { url: `${search.baseUrl}/pages/tsumugi` } }] },
      NO_REPLY,
    );
    ask(qq, "read this page");
    await bot.turnFinished(1);
    expect(toolResult(llm.requests[1])).toEqual({
      error: expect.stringMatching(/^refused: 127\.0\.0\.1 is/),
    });

    const plain = await scene(() => ({}));
    plain.llm.enqueue(NO_REPLY);
    ask(plain.qq, "search the web");
    await plain.bot.turnFinished(1);
    expect(plain.llm.requests[0]!.toolNames).not.toContain("web_search");
    expect(plain.llm.requests[0]!.toolNames).not.toContain("fetch_page");
  });

  it("keeps search.apiKey a secret: masked by the console, redacted in logs", () => {
    expect(secretPatterns(configJsonSchema)).toContain("search.apiKey");
  });
});
