import { readFileSync, writeFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { pluginStatus } from "../support/bot-api.ts";
import type { BotHarness } from "../support/bot-harness.ts";
import { ALICE, GROUP, mention } from "../support/messages.ts";
import type { OneBotStandIn } from "../support/onebot-standin.ts";
import { type Scene, startScene } from "../support/scene.ts";
import type { ScriptedLlmServer } from "../support/scripted-llm-server.ts";
import { copyExample, PluginSandbox } from "./stdio-fixtures.ts";

/** examples/plugins/example-python, a real Python 3 process, driven through the whole bot. */
describe("the Python example plugin (tools, hooks, enrichers, config_changed over stdio)", () => {
  let sandbox: PluginSandbox;
  let llm: ScriptedLlmServer;
  let bot: BotHarness;
  let scene: Scene | undefined;
  let qq: OneBotStandIn;

  const start = async (pluginConfig: Record<string, unknown>, configFile = false) => {
    sandbox = new PluginSandbox();
    copyExample(sandbox, "example-python");
    scene = await startScene({
      configFile,
      config: { plugins: { dirs: [sandbox.root], config: { "example-python": pluginConfig } } },
    });
    ({ llm, bot, qq } = scene);
  };
  const ask = (text: string) =>
    qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, nickname: "Alice", message: mention(text) });
  const toolResult = (index: number) =>
    String(llm.requests[index]!.body.messages.find((message) => message.role === "tool")?.content);
  /** The planner's request (the user message), where enrichers' sections go after the chat. */
  const plannerRequest = (index: number) => String(llm.requests[index]!.body.messages[1]!.content);

  afterEach(async () => {
    await scene?.close();
    scene = undefined;
    sandbox.remove();
  });

  it("registers its tool, answers the model's call and adds its enricher's text to the prompt", async () => {
    await start({ notes: "群规：不许刷屏。" });
    const status = await pluginStatus(bot, "example-python");
    expect(status.runtime).toBe("stdio");
    expect(status.process).toMatchObject({ state: "running", command: ["python3", "plugin.py"] });
    expect(status.components.map((component) => `${component.kind}:${component.name}`).sort()).toEqual([
      "enricher:notes",
      "hook:PreToolUse_1",
      "tool:calculate",
    ]);
    llm.enqueue(
      { toolCalls: [{ name: "calculate", arguments: { expression: "(3 + 4) * 12 / 7" } }] },
      { toolCalls: [{ name: "reply", arguments: {} }] },
      { text: "等于 12" },
    );
    ask("(3 + 4) * 12 / 7 等于多少");
    const sent = await qq.waitForSent(undefined, 8_000);
    expect(sent.text).toBe("等于 12");
    expect(llm.requests[0]!.toolNames).toContain("calculate");
    expect(toolResult(1)).toBe("(3 + 4) * 12 / 7 = 12.0");
    expect(plannerRequest(0)).toContain("## notes（插件 example-python 提供的补充信息）\n群规：不许刷屏。");
  });

  it("turns a plugin error into a failed tool result the model sees", async () => {
    await start({});
    llm.enqueue(
      { toolCalls: [{ name: "calculate", arguments: { expression: "__import__('os')" } }] },
      { toolCalls: [{ name: "no_reply", arguments: { reason: "算不了" } }] },
    );
    ask("算一下");
    expect((await bot.turnFinished()).data.status).toBe("silent");
    expect(toolResult(1)).toContain("工具 calculate 出错：cannot calculate");
    expect(plannerRequest(0)).not.toContain("插件 example-python"); // no notes, no section
  });

  it("denies a tool through its PreToolUse hook", async () => {
    await start({ deny_tools: ["calculate"] });
    llm.enqueue(
      { toolCalls: [{ name: "calculate", arguments: { expression: "1 + 1" } }] },
      { toolCalls: [{ name: "reply", arguments: {} }] },
      { text: "这里不能算" },
    );
    ask("1 + 1");
    await qq.waitForSent(undefined, 8_000);
    expect(toolResult(1)).toBe("调用被拒绝：calculate is switched off here");
  });

  it("receives config_changed when its config is edited in the config file", async () => {
    await start({ notes: "旧的备注" }, true);
    const file = bot.configFile!;
    const document = parse(readFileSync(file, "utf8"));
    document.plugins.config["example-python"] = { notes: "新的备注" };
    writeFileSync(file, stringify(document));
    const changed = await bot.waitForLog((line) => String(line.msg).startsWith("config changed"), 5_000);
    expect(changed).toMatchObject({ plugin: "example-python", stream: "stderr" });
    expect((await pluginStatus(bot, "example-python")).config).toEqual({ notes: "新的备注", deny_tools: [] });
    llm.enqueue({ toolCalls: [{ name: "no_reply", arguments: { reason: "看看" } }] });
    ask("在吗");
    expect((await bot.turnFinished()).data.status).toBe("silent");
    expect(plannerRequest(0)).toContain("新的备注");
    expect(plannerRequest(0)).not.toContain("旧的备注");
  });
});
