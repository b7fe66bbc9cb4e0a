/**
 * Many tools without a huge prompt (deferred tools): the bot with one MCP server offering 100 tools
 * (the test server over stdio), against the same bot with no MCP server, answering the same
 * mention after the same 20 messages of chatter (OneBot stand-in, scripted model).
 *
 * Figures: the tools the first planner request declares and its estimated tokens (messages
 * plus tool declarations, `requestTokens` of prompt-cache.ts) in each case; the same with
 * deferral off (all 100 declared), and the request after a `tool_search` that found 5 tools.
 * Targets: at most 25 declared tools, and at most +1,000 tokens over the bot with no MCP server.
 */
import { fileURLToPath } from "node:url";
import { startBot } from "../test/support/bot-harness.ts";
import { FIXED_TOOL_COUNT } from "../test/support/mcp-test-server.ts";
import { OneBotStandIn } from "../test/support/onebot-standin.ts";
import { type RecordedLlmRequest, ScriptedLlmServer } from "../test/support/scripted-llm-server.ts";
import { requestTokens } from "./prompt-cache.ts";

const MCP_TOOLS = 100;
const SELF = "10000";
const GROUP = "20000";
const CHATTER = ["今天谁有空", "我刚下班", "周末去爬山吗", "这家奶茶好喝", "明天的会改到十点了"];
const SERVER = [
  process.execPath,
  "--import",
  import.meta.resolve("tsx"),
  fileURLToPath(new URL("../test/support/mcp-stdio-server.ts", import.meta.url)),
];

interface Scene {
  mcp: boolean;
  agent?: Record<string, unknown>;
  /** Answer the mention with a tool_search first (deferral on). */
  search?: boolean;
}

export async function benchMcpTools(): Promise<Record<string, unknown>> {
  const withoutMcp = await planner({ mcp: false });
  const deferred = await planner({ mcp: true, search: true });
  const allDeclared = await planner({ mcp: true, agent: { deferToolsAbove: 0 } });
  const base = requestTokens(withoutMcp[0]!);
  const figures = (request: RecordedLlmRequest) => ({
    declaredTools: request.toolNames.length,
    promptTokens: requestTokens(request),
    overNoMcpTokens: requestTokens(request) - base,
  });
  return {
    mcpTools: MCP_TOOLS,
    tokenEstimate: "prompt-cache.ts requestTokens: messages + tool declarations",
    noMcpServer: figures(withoutMcp[0]!),
    deferred: figures(deferred[0]!),
    deferredAfterToolSearch: figures(deferred[1]!),
    deferralOff: figures(allDeclared[0]!),
    targetDeclaredToolsAtMost: 25,
    targetOverNoMcpTokensAtMost: 1_000,
  };
}

/** The planner requests of one mention after 20 messages of chatter. */
async function planner(scene: Scene): Promise<RecordedLlmRequest[]> {
  const llm = await ScriptedLlmServer.start();
  const servers = scene.mcp
    ? [{ id: "tools", command: SERVER, env: { MCP_EXTRA_TOOLS: String(MCP_TOOLS - FIXED_TOOL_COUNT) } }]
    : [];
  const bot = await startBot({
    llm,
    config: {
      plugins: { dirs: [] },
      mcp: { servers },
      ...(scene.agent ? { agent: scene.agent } : {}),
      log: { level: "warn" },
    },
  });
  const qq = new OneBotStandIn({ selfId: SELF, nickname: "紬" });
  await qq.connectReverse(bot.wsUrl);
  if (scene.mcp) await bot.waitForEvent("mcp.server", (event) => event.data.state === "connected", 20_000);
  for (let i = 0; i < 20; i++) {
    qq.pushGroupMessage({
      groupId: GROUP,
      userId: String(30_001 + (i % 5)),
      message: [{ type: "text", data: { text: CHATTER[i % CHATTER.length]! } }],
    });
  }
  if (scene.search)
    llm.enqueue({ toolCalls: [{ name: "tool_search", arguments: { query: "calendar events" } }] });
  llm.enqueue({ toolCalls: [{ name: "no_reply", arguments: { reason: "bench" } }] });
  qq.pushGroupMessage({
    groupId: GROUP,
    userId: "30009",
    message: [
      { type: "at", data: { qq: SELF } },
      { type: "text", data: { text: " 帮我看看日程" } },
    ],
  });
  await bot.turnFinished(1, 20_000);
  await qq.close();
  await bot.dispose();
  await llm.close();
  return llm.requests;
}
