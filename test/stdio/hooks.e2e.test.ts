import { afterEach, describe, expect, it } from "vitest";
import { type BotHarness, startBot } from "../support/bot-harness.ts";
import { OneBotStandIn } from "../support/onebot-standin.ts";
import { ScriptedLlmServer } from "../support/scripted-llm-server.ts";
import { nodeStdioPlugin, PluginSandbox, pluginStatus } from "./stdio-fixtures.ts";

const SELF = "10000";
const GROUP = "20000";

/** Answers PreToolUse with xbot's documented spelling `hookResult`, telling what it was asked. */
const GUARD = `
const readline = require("node:readline");
const write = (message) => process.stdout.write(JSON.stringify(message) + "\\n");
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const { method, params = {} } = JSON.parse(line);
  if (method === "activate") {
    return write({
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

describe("stdio hooks", () => {
  let sandbox: PluginSandbox;
  let llm: ScriptedLlmServer;
  let bot: BotHarness;
  let qq: OneBotStandIn;

  afterEach(async () => {
    await qq?.close();
    await bot?.dispose();
    await llm?.close();
    sandbox.remove();
  });

  it("denies a tool call with hookResult and sends xbot's hook fields", async () => {
    sandbox = new PluginSandbox();
    nodeStdioPlugin(sandbox, "guard", GUARD);
    llm = await ScriptedLlmServer.start();
    bot = await startBot({ llm, config: { plugins: { dirs: [sandbox.root] } } });
    qq = new OneBotStandIn({ selfId: SELF });
    await qq.connectReverse(bot.wsUrl);
    // SessionEnd is an xbot event this host never fires: left out, the rest registered.
    expect((await pluginStatus(bot, "guard")).components.map((component) => component.name)).toEqual([
      "delete_file",
      "PreToolUse_1",
      "AgentStop_3",
    ]);
    expect(
      bot.logs.some((line) => String(line.msg).startsWith("plugin hook left out: hook guard.SessionEnd_2")),
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
});
