import { afterEach, describe, expect, it } from "vitest";
import { pluginStatus } from "../support/bot-api.ts";
import { type BotHarness, startBot } from "../support/bot-harness.ts";
import { SELF } from "../support/messages.ts";
import { OneBotStandIn } from "../support/onebot-standin.ts";
import { ScriptedLlmServer } from "../support/scripted-llm-server.ts";
import { waitFor } from "../support/wait.ts";
import { copyExample, PluginSandbox } from "./stdio-fixtures.ts";

/** examples/plugins/example-node: a Node channel plugin serving a web chat, driven over its own HTTP API. */
describe("the Node channel example (channel_inbound, channel_send, channel_tools, channel_prompt, web_ui)", () => {
  let sandbox: PluginSandbox;
  let llm: ScriptedLlmServer;
  let bot: BotHarness;

  const start = async (pluginConfig?: Record<string, unknown>) => {
    sandbox = new PluginSandbox();
    copyExample(sandbox, "example-node");
    llm = await ScriptedLlmServer.start();
    bot = await startBot({
      llm,
      config: {
        plugins: { dirs: [sandbox.root], config: pluginConfig ? { "example-node": pluginConfig } : {} },
      },
    });
  };
  /** The chat page's address, once the plugin has announced it as a console widget. */
  const chatUrl = async () => {
    let url: string | undefined;
    await waitFor(async () => {
      const widgets = (await pluginStatus(bot, "example-node")).widgets as
        | Array<{ url?: string }>
        | undefined;
      url = widgets?.[0]?.url;
      return url !== undefined;
    });
    return url!;
  };

  afterEach(async () => {
    await bot?.dispose();
    await llm?.close();
    sandbox.remove();
  });

  it("answers a message typed on the channel through channel_send, with the channel's tools and prompt", async () => {
    await start({ listen: "127.0.0.1:0" });
    const url = await chatUrl();
    const status = await pluginStatus(bot, "example-node");
    expect(status.channel).toMatchObject({ name: "webchat" });
    llm.enqueue(
      { toolCalls: [{ name: "webchat_status", arguments: {} }] },
      { toolCalls: [{ name: "reply", arguments: {} }] },
      { text: "你好呀，Alice" },
    );
    const posted = await fetch(`${url}messages`, {
      method: "POST",
      body: JSON.stringify({ chatId: "alice", senderName: "Alice", text: "你好" }),
    });
    expect(posted.status).toBe(202);
    const answer = await fetch(`${url}messages?chatId=alice&wait=8000`);
    const { messages } = (await answer.json()) as { messages: Array<{ text: string; chatId: string }> };
    expect(messages).toEqual([expect.objectContaining({ chatId: "alice", text: "你好呀，Alice" })]);

    const planner = llm.requests[0]!;
    expect(planner.toolNames).toContain("webchat_status");
    expect(String(planner.body.messages[0]!.content)).toContain("你在网页聊天窗口里和用户一对一聊天");
    expect(planner.promptText).toContain("Alice");
    const toolResult = llm.requests[1]!.body.messages.find((message) => message.role === "tool");
    expect(JSON.parse(String(toolResult!.content))).toMatchObject({ url, replies: 0 });
    const ended = await bot.turnFinished();
    expect(ended).toMatchObject({ sessionId: "stdio:example-node:alice", data: { status: "replied" } });
  });

  it("keeps the channel's tools and prompt out of other chats", async () => {
    await start({ listen: "127.0.0.1:0" });
    await chatUrl();
    const qq = new OneBotStandIn({ selfId: SELF });
    await qq.connectReverse(bot.wsUrl);
    try {
      llm.enqueue({ toolCalls: [{ name: "no_reply", arguments: { reason: "不说话" } }] });
      qq.pushGroupMessage({
        groupId: "20000",
        userId: "30001",
        message: [{ type: "at", data: { qq: SELF } }],
      });
      expect((await bot.turnFinished()).data.status).toBe("silent");
      expect(llm.requests[0]!.toolNames).not.toContain("webchat_status");
      expect(String(llm.requests[0]!.body.messages[0]!.content)).not.toContain("网页聊天窗口");
    } finally {
      await qq.close();
    }
  });

  it("stays closed, with nothing in the prompt, until its config gives it an address", async () => {
    await start();
    let widgets: unknown;
    await waitFor(async () => {
      widgets = (await pluginStatus(bot, "example-node")).widgets;
      return widgets !== undefined;
    });
    expect(widgets).toEqual([
      { type: "text", text: "Web chat closed: set plugins.config.example-node.listen to open it" },
    ]);
    expect((await pluginStatus(bot, "example-node")).components).toEqual([]);

    // The console changes the config: the plugin gets config_changed and opens the channel.
    const changed = await fetch(`${bot.baseUrl}/api/plugins/example-node/config`, {
      method: "PUT",
      headers: { "content-type": "application/json", "x-tsumugi-console": "1" },
      body: JSON.stringify({ config: { listen: "127.0.0.1:0" } }),
    });
    expect(changed.status).toBe(200);
    const url = await chatUrl();
    expect((await pluginStatus(bot, "example-node")).components.map((component) => component.name)).toEqual([
      "webchat_status",
    ]);
    llm.enqueue({ toolCalls: [{ name: "reply", arguments: {} }] }, { text: "开门了" });
    await fetch(`${url}messages`, { method: "POST", body: JSON.stringify({ text: "有人吗" }) });
    const answer = await fetch(`${url}messages?chatId=default&wait=8000`);
    expect(((await answer.json()) as { messages: Array<{ text: string }> }).messages[0]?.text).toBe("开门了");
  });
});
