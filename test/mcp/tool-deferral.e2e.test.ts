import { afterEach, describe, expect, it } from "vitest";
import { ALICE, GROUP, mention } from "../support/messages.ts";
import { type Scene, startScene } from "../support/scene.ts";
import { STDIO_SERVER_COMMAND, serverState, toolResults } from "./mcp-fixtures.ts";

/** Deferred tools: with many tools the planner sees a few and finds the others with tool_search. */
describe("deferred tools", () => {
  let scene: Scene | undefined;

  afterEach(async () => {
    await scene?.close();
    scene = undefined;
  });

  const start = async (agent: Record<string, unknown> = {}) => {
    scene = await startScene({
      config: {
        agent,
        mcp: { servers: [{ id: "demo", command: STDIO_SERVER_COMMAND, env: { MCP_EXTRA_TOOLS: "100" } }] },
      },
    });
    await serverState(scene.bot, "demo", "connected");
    return scene;
  };
  const isMcpOrSearch = (name: string) => name.startsWith("mcp__") || name === "tool_search";
  const ask = (text: string) =>
    scene!.qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, nickname: "Alice", message: mention(text) });

  it("declares at most 25 tools with 107 available, and tool_search makes a found one callable", async () => {
    const { llm, bot } = await start({ alwaysOnTools: ["mcp__demo__echo"] });
    llm.enqueue(
      // Not declared yet: unknown until found.
      { toolCalls: [{ name: "mcp__demo__weather", arguments: { city: "上海" } }] },
      { toolCalls: [{ name: "tool_search", arguments: { query: "current weather in a city" } }] },
      { toolCalls: [{ name: "mcp__demo__weather", arguments: { city: "上海" } }] },
      { toolCalls: [{ name: "no_reply", arguments: { reason: "done" } }] },
    );
    ask("上海天气");
    await bot.turnFinished();
    const [first, second, third, fourth] = llm.requests;
    expect(first!.toolNames.length).toBeLessThanOrEqual(25);
    expect(first!.toolNames.filter(isMcpOrSearch)).toEqual(["mcp__demo__echo", "tool_search"]);
    expect(toolResults(second!)[0]).toContain('unknown tool "mcp__demo__weather"');
    expect(toolResults(third!).at(-1)).toContain("mcp__demo__weather: Current weather of a city.");
    // Found tools are declared after the ones before, so the turn's requests share their prefix.
    expect(third!.toolNames.slice(0, first!.toolNames.length)).toEqual(first!.toolNames);
    expect(third!.toolNames).toContain("mcp__demo__weather");
    expect(third!.toolNames.length).toBeLessThanOrEqual(25);
    expect(toolResults(fourth!).at(-1)).toBe("上海: sunny, 25°C");

    // The next turn starts over with the short list.
    llm.enqueue({ toolCalls: [{ name: "no_reply", arguments: { reason: "quiet" } }] });
    ask("再问一次");
    await bot.turnFinished(2);
    expect(llm.requests[4]!.toolNames).not.toContain("mcp__demo__weather");
  });

  it("declares every tool when deferral is off", async () => {
    const { llm, bot } = await start({ deferToolsAbove: 0 });
    llm.enqueue({ toolCalls: [{ name: "no_reply", arguments: { reason: "quiet" } }] });
    ask("在吗");
    await bot.turnFinished();
    expect(llm.requests[0]!.toolNames.filter(isMcpOrSearch)).toHaveLength(107);
    expect(llm.requests[0]!.toolNames).not.toContain("tool_search");
  });
});
