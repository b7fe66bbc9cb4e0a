import { afterEach, describe, expect, it } from "vitest";
import { pluginStatus } from "../support/bot-api.ts";
import { GROUP, SELF } from "../support/messages.ts";
import { type Scene, startScene } from "../support/scene.ts";
import { nodeStdioPlugin, PluginSandbox } from "./stdio-fixtures.ts";

/**
 * Answers activate with the protocol examples' `"result": "success"` beside its lists, and PreToolUse with
 * xbot's documented spelling `hookResult`, telling what it was asked.
 */
const GUARD = `
const readline = require("node:readline");
const write = (message) => process.stdout.write(JSON.stringify(message) + "\\n");
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const { method, params = {} } = JSON.parse(line);
  if (method === "activate") {
    return write({
      result: "success",
      tools: [{ name: "delete_file", description: "Delete a file", parameters: [{ name: "path", type: "string" }] }],
      hooks: [
        { event: "PreToolUse", matcher: "delete_*" },
        { event: "SessionEnd" },
        { event: "AgentStop" },
      ],
    });
  }
  if (method === "hook" && params.event === "PreToolUse") {
    return write({ hookResult: { decision: "deny", message: JSON.stringify(params) } });
  }
  if (method === "hook") return write({ result: "ok" }); // no hook_result: allow
  if (method === "execute_tool") return write({ result: "deleted " + params.input });
  write({ result: "ok" });
});
`;

/**
 * A slow plugin: its enricher answers after 3.3 s and its PreToolUse hook denies after 5.3 s,
 * beyond the 3 s / 5 s an in-process enricher / hook gets but well within a plugin call's 30 s.
 */
const SLOW = `
const readline = require("node:readline");
const write = (message) => process.stdout.write(JSON.stringify(message) + "\\n");
const later = (ms, message) => setTimeout(() => write(message), ms);
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const { method, params = {} } = JSON.parse(line);
  if (method === "activate") {
    return write({
      tools: [{ name: "launch", description: "Launch", parameters: [] }],
      hooks: [{ event: "PreToolUse", matcher: "launch" }],
      enrichers: [{ name: "slow_notes" }],
    });
  }
  if (method === "enrich") return later(3300, { result: "慢慢想好的补充" });
  if (method === "hook") return later(5300, { hook_result: { decision: "deny", message: "想了很久，不行" } });
  if (method === "execute_tool") return write({ result: "launched" });
  write({ result: "ok" });
});
`;

describe("stdio hooks", () => {
  let sandbox: PluginSandbox;
  let scene: Scene | undefined;

  afterEach(async () => {
    await scene?.close();
    sandbox.remove();
  });

  it("denies a tool call with hookResult and sends xbot's hook fields", async () => {
    sandbox = new PluginSandbox();
    nodeStdioPlugin(sandbox, "guard", GUARD);
    scene = await startScene({ config: { plugins: { dirs: [sandbox.root] } }, selfId: SELF });
    const { llm, bot, qq } = scene;
    // SessionEnd is an xbot event this host never fires: left out, the rest registered.
    expect((await pluginStatus(bot, "guard")).components.map((component) => component.name)).toEqual([
      "delete_file",
      "PreToolUse_1",
      "AgentStop_3",
    ]);
    expect(
      bot.logs.some((line) =>
        String(line.msg).startsWith('plugin declaration skipped: hook "SessionEnd": hook guard.SessionEnd_2'),
      ),
    ).toBe(true);
    llm.enqueue(
      { toolCalls: [{ name: "delete_file", arguments: { path: "/etc/passwd" } }] },
      { toolCalls: [{ name: "reply", arguments: {} }] },
      { text: "不能删" },
    );
    qq.pushGroupMessage({ groupId: GROUP, userId: "30001", message: [{ type: "at", data: { qq: SELF } }] });
    await qq.waitForSent(undefined, 8_000);
    const result = String(llm.requests[1]!.body.messages.find((message) => message.role === "tool")!.content);
    expect(result.startsWith("调用被拒绝：")).toBe(true);
    const asked = JSON.parse(result.slice("调用被拒绝：".length));
    expect(asked).toMatchObject({
      event: "PreToolUse",
      toolName: "delete_file",
      toolInput: '{"path":"/etc/passwd"}',
      sessionId: `onebot:${SELF}:group:${GROUP}`,
      channel: "qq",
      chatId: GROUP,
    });
    expect(typeof asked.replyId).toBe("string");
  });

  it("gives hook and enrich calls the manifest timeout (30 s by default), like every plugin call", async () => {
    sandbox = new PluginSandbox();
    nodeStdioPlugin(sandbox, "slow", SLOW);
    scene = await startScene({ config: { plugins: { dirs: [sandbox.root] } }, selfId: SELF });
    const { llm, bot, qq } = scene;
    llm.enqueue(
      { toolCalls: [{ name: "launch", arguments: {} }] },
      { toolCalls: [{ name: "reply", arguments: {} }] },
      { text: "发射被拦下了" },
    );
    qq.pushGroupMessage({ groupId: GROUP, userId: "30001", message: [{ type: "at", data: { qq: SELF } }] });
    await qq.waitForSent(undefined, 15_000);
    expect(String(llm.requests[0]!.body.messages[1]!.content)).toContain("慢慢想好的补充");
    const result = llm.requests[1]!.body.messages.find((message) => message.role === "tool")!.content;
    expect(result).toBe("调用被拒绝：想了很久，不行");
    expect((await pluginStatus(bot, "slow")).process).toMatchObject({ state: "running", restarts: 0 });
  }, 20_000);
});
