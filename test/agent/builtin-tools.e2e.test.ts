import { afterEach, describe, expect, it } from "vitest";
import { toolResults } from "../mcp/mcp-fixtures.ts";
import { classPlugin, PluginSandbox } from "../plugins/plugin-fixtures.ts";
import { ALICE, GROUP, mention } from "../support/messages.ts";
import { type Scene, startScene } from "../support/scene.ts";

/** The planner's own tools take the same argument check as plugin tools: their declared schema. */
describe("built-in tools' arguments", () => {
  let scene: Scene | undefined;
  let sandbox: PluginSandbox | undefined;

  afterEach(async () => {
    await scene?.close();
    scene = undefined;
    sandbox?.remove();
    sandbox = undefined;
  });

  const ask = (text: string) =>
    scene!.qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, nickname: "Alice", message: mention(text) });

  it("refuses a wrong type or an undeclared argument the way a plugin tool's schema does", async () => {
    sandbox = new PluginSandbox();
    sandbox.add("counter", {
      "index.ts": classPlugin(`
  @Tool("count", {
    description: "数数",
    parameters: [{ name: "to", type: "number", description: "数到几", required: true }],
  })
  async count(args: { to: number }) { return { counted: args.to }; }`),
    });
    scene = await startScene({ config: { plugins: { dirs: [sandbox.root] } } });
    const { llm, bot, qq } = scene;
    llm.enqueue(
      { toolCalls: [{ name: "count", arguments: { to: "三" } }] },
      // A reason that is not a string: the hand-written check took it for "no reason given".
      { toolCalls: [{ name: "no_reply", arguments: { reason: 42 } }] },
    );
    ask("数到三");
    // The second invalid call in a turn fails it, whichever tool made it.
    const first = await bot.turnFinished(1);
    expect(first.data).toMatchObject({
      status: "failed",
      reason: expect.stringContaining("invalid tool arguments twice (no_reply: reason must be string)"),
    });
    expect(toolResults(llm.requests[1]!)).toEqual(["调用 count 出错：to must be number"]);

    llm.enqueue(
      { toolCalls: [{ name: "wait", arguments: { seconds: "5" } }] },
      { toolCalls: [{ name: "reply", arguments: { set_quote: false, mood: "happy" } }] },
    );
    ask("等一下");
    const second = await bot.turnFinished(2);
    expect(second.data).toMatchObject({
      status: "failed",
      reason: expect.stringContaining("(reply: arguments must NOT have additional properties)"),
    });
    expect(toolResults(llm.requests[3]!)).toEqual(["调用 wait 出错：seconds must be number"]);
    expect(qq.sent).toEqual([]);
  });
});
