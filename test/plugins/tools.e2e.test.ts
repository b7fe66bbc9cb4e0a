import { afterEach, describe, expect, it } from "vitest";
import { frameAbout } from "../adapters/notice-fixtures.ts";
import type { BotHarness } from "../support/bot-harness.ts";
import { ALICE, GROUP, mention, SELF } from "../support/messages.ts";
import type { OneBotStandIn } from "../support/onebot-standin.ts";
import { type Scene, startScene } from "../support/scene.ts";
import type { ScriptedLlmServer } from "../support/scripted-llm-server.ts";
import { classPlugin, PluginSandbox } from "./plugin-fixtures.ts";

const probe = globalThis as { pluginProbe?: Record<string, unknown> };

describe("plugin tools in the planner loop (function declarations)", () => {
  let sandbox: PluginSandbox;
  let llm: ScriptedLlmServer;
  let bot: BotHarness;
  let scene: Scene | undefined;
  let qq: OneBotStandIn;

  const start = async (pluginConfig: Record<string, unknown> = {}, config: Record<string, unknown> = {}) => {
    scene = await startScene({
      config: { plugins: { dirs: [sandbox.root], config: pluginConfig }, ...config },
    });
    ({ llm, bot, qq } = scene);
  };
  const ask = (text: string) =>
    qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, nickname: "Alice", message: mention(text) });
  const toolMessages = (index: number) =>
    llm.requests[index]!.body.messages.filter((message) => message.role === "tool");

  afterEach(async () => {
    await scene?.close();
    scene = undefined;
    sandbox.remove();
    delete probe.pluginProbe;
  });

  const weatherPlugin = () =>
    classPlugin(`
  @Tool("get_weather", {
    description: "查询城市天气",
    parameters: [{ name: "city", type: "string", description: "城市", required: true }],
  })
  async weather(args: { city: string }) {
    const probe = ((globalThis as any).pluginProbe ??= { calls: 0 });
    probe.calls++;
    if (args.city === "火星") throw new Error("服务暂时不可用");
    return { city: args.city, forecast: "晴，25°C" };
  }`);

  it("sends a tool's object back to the planner, which then replies", async () => {
    sandbox = new PluginSandbox();
    // Outside the project folder, with no package.json: `tsumugi/sdk` still resolves.
    expect(sandbox.root.startsWith(process.cwd())).toBe(false);
    sandbox.add("weather", { "index.ts": weatherPlugin() });
    await start();
    llm.enqueue(
      { toolCalls: [{ name: "get_weather", arguments: { city: "上海" } }] },
      { toolCalls: [{ name: "reply", arguments: {} }] },
      { text: "上海今天晴，25 度" },
    );
    ask("上海天气怎么样");
    const sent = await qq.waitForSent(undefined, 8_000);
    expect(sent.text).toBe("上海今天晴，25 度");
    expect(llm.requests[0]!.toolNames).toEqual([
      "reply",
      "no_reply",
      "wait",
      "remember",
      "recall",
      "schedule",
      "get_weather",
    ]);
    const [result] = toolMessages(1);
    expect(JSON.parse(String(result!.content))).toEqual({ city: "上海", forecast: "晴，25°C" });
    expect(llm.requests).toHaveLength(3);
    expect(llm.unscriptedRequests).toEqual([]);
  });

  it("declares a tool offered per turn (poke) after the plugin tools, so those keep their place in the prompt", async () => {
    sandbox = new PluginSandbox();
    sandbox.add("weather", { "index.ts": weatherPlugin() });
    await start();
    llm.enqueue(
      { toolCalls: [{ name: "no_reply", arguments: { reason: "不是问我" } }] },
      { toolCalls: [{ name: "poke", arguments: {} }] },
      { toolCalls: [{ name: "no_reply", arguments: { reason: "戳回去了" } }] },
    );
    ask("在吗");
    await bot.turnFinished(1);
    // A NapCat group poke of the bot (test/fixtures/onebot/napcat/notice-group-poke.json).
    qq.pushEvent(
      frameAbout("napcat/notice-group-poke", { group_id: GROUP, user_id: ALICE, target_id: SELF }),
    );
    await qq.waitForAction("group_poke");
    await bot.turnFinished(2);
    const [asked, poked] = llm.requestsWithTool("reply");
    expect(asked!.toolNames).toEqual([
      "reply",
      "no_reply",
      "wait",
      "remember",
      "recall",
      "schedule",
      "get_weather",
    ]);
    expect(poked!.toolNames).toEqual([...asked!.toolNames, "poke"]);
    // The declarations the two turns share are identical, byte for byte: a cached prefix.
    const declared = (request: typeof asked) => JSON.stringify(request!.body.tools);
    expect(declared(poked).startsWith(declared(asked).slice(0, -1))).toBe(true);
  });

  it("ends the turn without another model call when a declared function returns nothing", async () => {
    sandbox = new PluginSandbox();
    sandbox.add(
      "vault",
      {
        "index.ts": `
export const pluginDescription = "小金库积分服务";
export const dynamicImports = { "./service.ts": ["query_user_coins"] };
export const functionDeclarations = [
  {
    name: "query_user_coins",
    description: "查询群友的小金库金币余额",
    parameters: {
      type: "object",
      properties: { target_name: { type: "string", description: "昵称，问自己时填 self" } },
      required: ["target_name"],
    },
  },
];`,
        "service.ts": `
(globalThis as any).pluginProbe = { imported: true };
export async function query_user_coins(bot: any, event: any, config: any, args: any) {
  await bot.send(event, \`\${event.sender.nickname} 有 \${config.coins} 枚金币（\${args.target_name}，bot.send 是 \${typeof bot.send}，群 \${event.group_id}）\`);
}`,
      },
      { config: { type: "object", properties: { coins: { type: "integer", default: 1250 } } } },
    );
    await start();
    expect(probe.pluginProbe).toBeUndefined(); // imported lazily, on the first call
    llm.enqueue({
      toolCalls: [
        {
          name: "query_user_coins",
          // Model arguments named like the injected three never replace them.
          arguments: { target_name: "self", bot: "not a bot", event: "fake", config: { coins: 0 } },
        },
      ],
    });
    ask("我有多少金币");
    const sent = await qq.waitForSent(undefined, 8_000);
    expect(sent.text).toBe(`Alice 有 1250 枚金币（self，bot.send 是 function，群 ${GROUP}）`);
    const ended = await bot.turnFinished();
    expect(ended.data.status).toBe("replied");
    expect(String(ended.data.reason)).toContain("query_user_coins acted");
    expect(probe.pluginProbe).toEqual({ imported: true });
    expect(llm.requests).toHaveLength(1);
  });

  it("sends a declared function's dict back to the planner after the function sent segments itself", async () => {
    sandbox = new PluginSandbox();
    sandbox.add("tarot", {
      "index.ts": `
export const pluginDescription = "塔罗牌";
export const dynamicImports = { "./draw.ts": ["call_tarot"] };
export const functionDeclarations = [
  { name: "call_tarot", description: "抽一张塔罗牌", parameters: { type: "object", properties: {} } },
];`,
      "draw.ts": `
import { Image, Text } from "tsumugi/sdk";
export async function call_tarot(bot: any, event: any, config: any) {
  await bot.send(event, [Text(event.pure_text + "|" + event.user_id), Image("https://example.com/tower.png")]);
  return { text: "塔（正位）", img: "https://example.com/tower.png" };
}`,
    });
    await start();
    llm.enqueue(
      { toolCalls: [{ name: "call_tarot", arguments: {} }] },
      { toolCalls: [{ name: "reply", arguments: {} }] },
      { text: "是高塔呢，小心变故" },
    );
    ask("抽一张塔罗牌");
    const card = await qq.waitForSent(undefined, 8_000);
    // `event` is the triggering message: its sender's id and its text without the leading @.
    expect(card.text).toBe(`抽一张塔罗牌|${ALICE}`);
    expect(card.message).toContainEqual({ type: "image", data: { file: "https://example.com/tower.png" } });
    const reply = await qq.waitForSent((sent) => sent.messageId !== card.messageId, 8_000);
    expect(reply.text).toBe("是高塔呢，小心变故");
    const [result] = toolMessages(1);
    expect(JSON.parse(String(result!.content))).toEqual({
      text: "塔（正位）",
      img: "https://example.com/tower.png",
    });
    expect(llm.requests).toHaveLength(3);
  });

  it("lets a declared function call bot.refreshTools(): the next request already has the new tool", async () => {
    sandbox = new PluginSandbox();
    sandbox.add(
      "installer",
      {
        "index.ts": `
export const dynamicImports = { "./install.ts": ["install_tool"] };
export const functionDeclarations = [{ name: "install_tool", description: "安装新工具" }];`,
        "install.ts": `
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
export async function install_tool(bot: any, event: any, config: { root: string }) {
  const dir = join(config.root, "fresh");
  mkdirSync(dir);
  writeFileSync(join(dir, "plugin.json"), JSON.stringify({ id: "fresh", version: "1.0.0", runtime: "node", entry: "index.ts", sdk: "^1.0.0" }));
  writeFileSync(join(dir, "index.ts"), 'export const dynamicImports = { "./x.ts": ["fresh_tool"] }; export const functionDeclarations = [{ name: "fresh_tool", description: "新工具" }];');
  writeFileSync(join(dir, "x.ts"), "export async function fresh_tool() { return {}; }");
  await bot.refreshTools();
  return { installed: "fresh_tool" };
}`,
      },
      { config: { type: "object", properties: { root: { type: "string" } }, required: ["root"] } },
    );
    await start({ installer: { root: sandbox.root } });
    llm.enqueue(
      { toolCalls: [{ name: "install_tool", arguments: {} }] },
      { toolCalls: [{ name: "no_reply", arguments: { reason: "装好了" } }] },
    );
    ask("装个新工具");
    await bot.turnFinished();
    // The round right after the call: no watcher delay, refreshTools itself rescanned.
    expect(llm.requests[1]!.toolNames).toContain("fresh_tool");
    expect(llm.requests[0]!.toolNames).not.toContain("fresh_tool");
  });

  it("tells the model about invalid arguments without running the tool", async () => {
    sandbox = new PluginSandbox();
    sandbox.add("weather", { "index.ts": weatherPlugin() });
    await start();
    llm.enqueue(
      { toolCalls: [{ name: "get_weather", arguments: { town: "上海" } }] },
      { toolCalls: [{ name: "reply", arguments: {} }] },
      { text: "请告诉我城市名" },
    );
    ask("天气？");
    await qq.waitForSent(undefined, 8_000);
    const [result] = toolMessages(1);
    expect(String(result!.content)).toContain("调用 get_weather 出错");
    expect(String(result!.content)).toContain("city");
    expect(probe.pluginProbe).toBeUndefined();
  });

  it("turns a thrown error into an error result and keeps the loop going", async () => {
    sandbox = new PluginSandbox();
    sandbox.add("weather", { "index.ts": weatherPlugin() });
    await start();
    llm.enqueue(
      { toolCalls: [{ name: "get_weather", arguments: { city: "火星" } }] },
      { toolCalls: [{ name: "reply", arguments: {} }] },
      { text: "火星的天气查不到" },
    );
    ask("火星天气？");
    const sent = await qq.waitForSent(undefined, 8_000);
    expect(sent.text).toBe("火星的天气查不到");
    expect(String(toolMessages(1)[0]!.content)).toContain("服务暂时不可用");
  });

  it("runs several calls of one answer concurrently and returns results in call order", async () => {
    sandbox = new PluginSandbox();
    sandbox.add("slow", {
      "index.ts": classPlugin(`
  @Tool("slow_lookup", { description: "慢查询", parameters: { key: { type: "string" }, ms: { type: "integer" } } })
  async lookup(args: { key: string; ms: number }) {
    const probe = ((globalThis as any).pluginProbe ??= { running: 0, most: 0 });
    probe.running++;
    probe.most = Math.max(probe.most, probe.running);
    await new Promise((resolve) => setTimeout(resolve, args.ms));
    probe.running--;
    return { key: args.key };
  }`),
    });
    await start();
    llm.enqueue(
      {
        toolCalls: [
          { name: "slow_lookup", arguments: { key: "first", ms: 300 } },
          { name: "slow_lookup", arguments: { key: "second", ms: 50 } },
        ],
      },
      { toolCalls: [{ name: "reply", arguments: {} }] },
      { text: "都查好了" },
    );
    ask("查两个");
    await qq.waitForSent(undefined, 8_000);
    expect(probe.pluginProbe).toMatchObject({ most: 2 });
    const results = toolMessages(1);
    expect(results.map((message) => message.tool_call_id)).toEqual(["call_0_0", "call_0_1"]);
    expect(results.map((message) => JSON.parse(String(message.content)).key)).toEqual(["first", "second"]);
  });

  it("bounds the loop by agent.maxRounds when the planner keeps calling tools", async () => {
    sandbox = new PluginSandbox();
    sandbox.add("weather", { "index.ts": weatherPlugin() });
    await start({}, { agent: { maxRounds: 3 } });
    const again = { toolCalls: [{ name: "get_weather", arguments: { city: "上海" } }] };
    llm.enqueue(again, again, again, again);
    ask("一直查");
    const ended = await bot.turnFinished();
    expect(ended.data.status).toBe("failed");
    expect(String(ended.data.reason)).toBe("planner did not finish within 3 rounds");
    expect(llm.requests).toHaveLength(3);
    expect(probe.pluginProbe).toMatchObject({ calls: 3 });
    expect(qq.sent).toEqual([]);
  });

  it("stops a tool at its timeout_ms and reports the timeout to the model", async () => {
    sandbox = new PluginSandbox();
    sandbox.add("stuck", {
      "index.ts": classPlugin(`
  @Tool("stuck", { description: "卡住", timeout_ms: 100 })
  async stuck() {
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    return { never: true };
  }`),
    });
    await start();
    llm.enqueue(
      { toolCalls: [{ name: "stuck", arguments: {} }] },
      { toolCalls: [{ name: "reply", arguments: {} }] },
      { text: "超时了" },
    );
    const started = Date.now();
    ask("试试");
    await qq.waitForSent(undefined, 8_000);
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(String(toolMessages(1)[0]!.content)).toContain("timed out after 100 ms");
  });
});
