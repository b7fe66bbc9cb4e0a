import { afterEach, describe, expect, it } from "vitest";
import { ALICE, GROUP, mention } from "../support/messages.ts";
import { type Scene, startScene } from "../support/scene.ts";
import { nodeStdioPlugin, PluginSandbox } from "./stdio-fixtures.ts";

/**
 * A silent tool (function-declaration style) over the raw protocol, from a language without the Python SDK:
 * `forget` sends its own confirmation (a `send_message` push naming the call) and answers
 * `{"acted": true}`; `whoami` answers from the call's event.
 */
const SILENT = `
const readline = require("node:readline");
const write = (message) => process.stdout.write(JSON.stringify(message) + "\\n");
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const { method, params = {} } = JSON.parse(line);
  if (method === "activate") {
    return write({ tools: [
      { name: "forget", description: "Clear the chat history", parameters: [] },
      { name: "whoami", description: "Who asks", parameters: [] },
    ] });
  }
  if (method === "execute_tool" && params.toolName === "forget") {
    write({ method: "send_message", params: { callId: "not-a-call", message: "lost" } });
    write({ method: "send_message", params: { callId: params.callId, message: { type: "text", data: "好的，对话记录已清除～" } } });
    return write({ acted: true, result: "ignored" });
  }
  if (method === "execute_tool") {
    return write({ result: params.event.sender.nickname + " in " + params.chatId + " via " + params.channel });
  }
  write({ result: "ok" });
});
`;

describe("silent tools over the stdio protocol (send_message, acted)", () => {
  let sandbox: PluginSandbox;
  let scene: Scene | undefined;

  afterEach(async () => {
    await scene?.close();
    sandbox.remove();
  });

  it("sends into the call's chat and ends the turn without another model call; the call carries its event", async () => {
    sandbox = new PluginSandbox();
    nodeStdioPlugin(sandbox, "silent", SILENT);
    scene = await startScene({ config: { plugins: { dirs: [sandbox.root] } } });
    const { llm, qq, bot } = scene;
    llm.enqueue({ toolCalls: [{ name: "forget", arguments: {} }] });
    qq.pushGroupMessage({
      groupId: GROUP,
      userId: ALICE,
      nickname: "Alice",
      message: mention("忘掉刚才的话"),
    });
    expect((await qq.waitForSent(undefined, 8_000)).text).toBe("好的，对话记录已清除～");
    expect((await bot.turnFinished()).data.status).toBe("replied");
    expect(llm.requests).toHaveLength(1);
    expect(qq.sent.map((sent) => sent.text)).toEqual(["好的，对话记录已清除～"]);

    llm.enqueue(
      { toolCalls: [{ name: "whoami", arguments: {} }] },
      { toolCalls: [{ name: "reply", arguments: {} }] },
      { text: "你是 Alice" },
    );
    qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, nickname: "Alice", message: mention("我是谁") });
    expect((await qq.waitForSent((sent) => sent.text === "你是 Alice", 8_000)).text).toBe("你是 Alice");
    const result = llm.requests[2]!.body.messages.find((message) => message.role === "tool")!;
    expect(result.content).toBe(`Alice in ${GROUP} via qq`);
  });
});
