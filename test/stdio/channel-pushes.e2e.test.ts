import { afterEach, describe, expect, it } from "vitest";
import { pluginStatus } from "../support/bot-api.ts";
import { type BotHarness, startBot } from "../support/bot-harness.ts";
import { ScriptedLlmServer } from "../support/scripted-llm-server.ts";
import { nodeStdioPlugin, PluginSandbox } from "./stdio-fixtures.ts";

/**
 * A channel plugin that pushes two lines the host must skip, declares its prompt and tools twice (the second declaration must
 * replace the first), then pushes a user's message; the bot's reply comes back as
 * `channel_send`, which it reports on stderr.
 */
const CHANNEL = `
const readline = require("node:readline");
const write = (message) => process.stdout.write(JSON.stringify(message) + "\\n");
const tool = (name) => ({ name, description: "A channel tool", parameters: [] });
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const { method, params = {} } = JSON.parse(line);
  if (method === "activate") {
    // Lists as a Go plugin without omitempty sends them: null.
    write({ channel_provider: { name: "tiny" }, tools: null, hooks: null, enrichers: null });
    write({ method: "channel_inbound", params: { chatId: "c1" } }); // no message: skipped
    write({ method: "channel_weather", params: {} }); // not a push the stdio protocol knows: skipped
    write({ method: "channel_prompt", params: { system_parts: { "99_old": "旧的提示词" } } });
    write({ method: "channel_tools", params: { tools: [tool("old_tool")] } });
    write({
      method: "channel_prompt",
      params: { system_parts: { "20_second": "第二段提示", "05_first": "第一段提示", "30_third": "第三段提示" } },
    });
    write({ method: "channel_tools", params: { tools: [tool("new_tool")] } });
    return write({ method: "channel_inbound", params: { message: "你好", chatId: "c1", senderName: "Ann" } });
  }
  if (method === "channel_send") {
    process.stderr.write("sent to " + params.chatId + ": " + params.text + "\\n");
    return write({ result: "ok" });
  }
  write({ result: "ok" });
});
`;

describe("stdio channel pushes", () => {
  let sandbox: PluginSandbox;
  let llm: ScriptedLlmServer;
  let bot: BotHarness;

  afterEach(async () => {
    await bot?.dispose();
    await llm?.close();
    sandbox.remove();
  });

  it("orders channel_prompt parts by key, lets a new declaration replace the old, and answers via channel_send", async () => {
    sandbox = new PluginSandbox();
    nodeStdioPlugin(sandbox, "tiny", CHANNEL);
    llm = await ScriptedLlmServer.start();
    llm.enqueue({ toolCalls: [{ name: "reply", arguments: {} }] }, { text: "你好，Ann" });
    bot = await startBot({ llm, config: { plugins: { dirs: [sandbox.root] } } });

    const sent = await bot.waitForLog((line) => String(line.msg).startsWith("sent to "), 8_000);
    expect(sent).toMatchObject({ msg: "sent to c1: 你好，Ann", plugin: "tiny", stream: "stderr" });
    const system = String(llm.requests[0]!.body.messages[0]!.content);
    const order = ["第一段提示", "第二段提示", "第三段提示"].map((text) => system.indexOf(text));
    expect(order.every((index) => index >= 0)).toBe(true);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(system).not.toContain("旧的提示词");
    expect(llm.requests[0]!.toolNames).toContain("new_tool");
    expect(llm.requests[0]!.toolNames).not.toContain("old_tool");
    expect(
      bot.logs.some((line) => String(line.msg).startsWith("plugin pushed an invalid channel_inbound")),
    ).toBe(true);
    expect(
      bot.logs.some((line) => line.msg === 'plugin pushed the unknown method "channel_weather"; skipped'),
    ).toBe(true);
    expect(llm.requests).toHaveLength(2); // one turn: the invalid inbound started none
    expect((await pluginStatus(bot, "tiny")).components.map((component) => component.name)).toEqual([
      "new_tool",
    ]);
  });
});
