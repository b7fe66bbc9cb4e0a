import { afterEach, describe, expect, it } from "vitest";
import { SDK_VERSION } from "../../src/sdk/version.ts";
import type { BotHarness } from "../support/bot-harness.ts";
import { ALICE, GROUP, mention, OTHER_GROUP, plain } from "../support/messages.ts";
import type { OneBotStandIn } from "../support/onebot-standin.ts";
import { type Scene, startScene } from "../support/scene.ts";
import type { ScriptedLlmServer } from "../support/scripted-llm-server.ts";
import { waitFor } from "../support/wait.ts";
import { classPlugin, PluginSandbox } from "./plugin-fixtures.ts";

const ADMIN = "39999";

/** The planner's own tools, offered beside the plugins' (memory's while it is on). */
const BUILTIN_TOOLS = [
  "reply",
  "no_reply",
  "wait",
  "send_sticker",
  "remember",
  "recall",
  "schedule",
  "tool_search",
];

const probe = globalThis as { pluginProbe?: Record<string, unknown> };

const versionedTool = (version: string, delayMs = 0) =>
  classPlugin(`
  @Tool("which_version", { description: "返回版本 ${version}" })
  async which() {
    ((globalThis as any).pluginProbe ??= {}).started = true;
    await new Promise((resolve) => setTimeout(resolve, ${delayMs}));
    return { version: "${version}" };
  }`);

describe("the plugin host: scope, switches, hot reload, manifests, commands", () => {
  let sandbox: PluginSandbox;
  let llm: ScriptedLlmServer;
  let bot: BotHarness;
  let scene: Scene | undefined;
  let qq: OneBotStandIn;

  const start = async (config: Record<string, unknown> = {}) => {
    scene = await startScene({
      config: { plugins: { dirs: [sandbox.root] }, bot: { admins: [ADMIN] }, ...config },
    });
    ({ llm, bot, qq } = scene);
  };
  const turns = () => bot.events.filter((event) => event.type === "turn.finished").length;
  /** Runs one silent turn in a chat and returns the plugin tools its planner request declared. */
  const toolsSeenIn = async (push: () => void): Promise<string[]> => {
    const before = turns();
    llm.enqueue({ toolCalls: [{ name: "no_reply", arguments: { reason: "看看工具" } }] });
    push();
    await bot.turnFinished(before + 1);
    return llm.requests.at(-1)!.toolNames.filter((name) => !BUILTIN_TOOLS.includes(name));
  };
  /** Sends a command and returns the first answer sent after it (earlier answers never match). */
  const command = async (userId: string, text: string, expected: (reply: string) => boolean) => {
    const earlier = new Set(qq.sent);
    qq.pushGroupMessage({ groupId: GROUP, userId, message: plain(text) });
    const answer = await qq.waitForSent((sent) => !earlier.has(sent) && expected(String(sent.text)), 15_000);
    return String(answer.text);
  };

  afterEach(async () => {
    await scene?.close();
    scene = undefined;
    sandbox.remove();
    delete probe.pluginProbe;
  });

  it("offers a tool only where its chat_scope and allowed_session apply", async () => {
    sandbox = new PluginSandbox();
    sandbox.add("scoped", {
      "index.ts": classPlugin(`
  @Tool("group_only", { description: "群聊工具", chat_scope: "group" })
  groupOnly() { return {}; }
  @Tool("private_only", { description: "私聊工具", chat_scope: "private" })
  privateOnly() { return {}; }
  @Tool("one_group", { description: "一个群的工具", allowed_session: ["group:${GROUP}"] })
  oneGroup() { return {}; }`),
    });
    await start();
    const inGroup = await toolsSeenIn(() =>
      qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: mention("在吗") }),
    );
    const inOtherGroup = await toolsSeenIn(() =>
      qq.pushGroupMessage({ groupId: OTHER_GROUP, userId: ALICE, message: mention("在吗") }),
    );
    const inPrivate = await toolsSeenIn(() =>
      qq.pushPrivateMessage({ userId: ALICE, message: plain("在吗") }),
    );
    expect(inGroup).toEqual(["group_only", "one_group"]);
    expect(inOtherGroup).toEqual(["group_only"]);
    expect(inPrivate).toEqual(["private_only"]);
  });

  it("drops a component an admin disables from the next request, and brings it back", async () => {
    sandbox = new PluginSandbox();
    sandbox.add("pair", {
      "index.ts": classPlugin(`
  @Tool("tool_a", { description: "A" })
  a() { return {}; }
  @Tool("tool_b", { description: "B" })
  b() { return {}; }`),
    });
    await start();
    const ask = () => qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: mention("hi") });
    expect(await toolsSeenIn(ask)).toEqual(["tool_a", "tool_b"]);
    expect(await command(ALICE, "/plugins disable pair.tool_a", (text) => text.includes("管理员"))).toBe(
      "只有管理员可以使用这个命令。",
    );
    expect(await command(ADMIN, "/plugins disable pair.tool_a", (text) => text.startsWith("pair"))).toContain(
      "tool:tool_a(停用)",
    );
    expect(await toolsSeenIn(ask)).toEqual(["tool_b"]);
    await command(ADMIN, "/plugins disable pair", (text) => text.includes("已停用"));
    expect(await toolsSeenIn(ask)).toEqual([]);
    await command(ADMIN, "/plugins enable pair", (text) => text.includes("已启用"));
    expect(await toolsSeenIn(ask)).toEqual(["tool_b"]);
    await command(ADMIN, "/plugins enable pair.tool_a", (text) => text.includes("已启用"));
    expect(await toolsSeenIn(ask)).toEqual(["tool_a", "tool_b"]);
  });

  it("reloads an edited plugin: in-flight calls finish on the old code, a broken edit keeps it", async () => {
    sandbox = new PluginSandbox();
    const plugin = sandbox.add("live", { "index.ts": versionedTool("v1", 600) });
    await start();
    const toolResult = () =>
      String(llm.requests.at(-1)!.body.messages.findLast((message) => message.role === "tool")!.content);
    // Turn 1: the call is running while the file changes.
    llm.enqueue(
      { toolCalls: [{ name: "which_version", arguments: {} }] },
      { toolCalls: [{ name: "no_reply", arguments: { reason: "ok" } }] },
    );
    qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: mention("版本？") });
    await waitFor(() => probe.pluginProbe?.started === true);
    plugin.write("index.ts", versionedTool("v2"));
    await bot.waitForEvent(
      "plugin.loaded",
      (event) => event.data.plugin === "live" && event.data.replaced === true,
    );
    await bot.turnFinished(1);
    expect(toolResult()).toContain('"v1"');
    // Turn 2 sees the new declaration and code.
    llm.enqueue(
      { toolCalls: [{ name: "which_version", arguments: {} }] },
      { toolCalls: [{ name: "no_reply", arguments: { reason: "ok" } }] },
    );
    qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: mention("现在呢？") });
    await bot.turnFinished(2);
    expect(
      llm.requests.at(-2)!.body.tools?.find((t) => t.function.name === "which_version")?.function.description,
    ).toBe("返回版本 v2");
    expect(toolResult()).toContain('"v2"');
    // A broken edit: reported, and v2 keeps answering.
    plugin.write("index.ts", "export default class {{ broken");
    const failure = await bot.waitForEvent("plugin.failed", (event) => event.data.plugin === "live");
    expect(failure.data.previousKeepsRunning).toBe(true);
    expect(await command(ADMIN, "/plugins list", (text) => text.includes("live"))).toMatch(
      /live 1\.0\.0 \[已启用][^\n]*\n {2}错误：/,
    );
    llm.enqueue(
      { toolCalls: [{ name: "which_version", arguments: {} }] },
      { toolCalls: [{ name: "no_reply", arguments: { reason: "ok" } }] },
    );
    qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: mention("还在吗？") });
    await bot.turnFinished(3);
    expect(toolResult()).toContain('"v2"');
  });

  it("reports bad manifests and configs in the log and status while the other plugins run", async () => {
    sandbox = new PluginSandbox();
    const tool = (name: string) =>
      classPlugin(`  @Tool("${name}", { description: "x" })\n  run() { return {}; }`);
    sandbox.add("bad_id", { "index.ts": tool("t1") }, { id: "Bad.Id" });
    sandbox.add("bad_version", { "index.ts": tool("t2") }, { version: "one" });
    sandbox.add("future", { "index.ts": tool("t3") }, { sdk: ">=2.0.0" });
    sandbox.add(
      "configured",
      { "index.ts": tool("t4") },
      {
        config: { type: "object", properties: { limit: { type: "integer" } } },
      },
    );
    sandbox.add("no_class", { "index.ts": "export const nothing = 1;\n" });
    sandbox.add("fine", { "index.ts": tool("fine_tool") });
    await start({ plugins: { dirs: [sandbox.root], config: { configured: { limit: "lots" } } } });
    const problems = bot.logs
      .filter((line) => String(line.msg).includes("failed to load"))
      .map((line) => String(line.msg));
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringContaining('id "Bad.Id" must match'),
        expect.stringContaining('version "one" is not a semver version'),
        expect.stringContaining(`sdk ">=2.0.0" does not accept this host's SDK version ${SDK_VERSION}`),
        expect.stringContaining("plugins.config.configured is invalid: limit: must be integer"),
        expect.stringContaining("must default-export a Plugin subclass"),
      ]),
    );
    const list = await command(ADMIN, "/plugins", (text) => text.includes("fine"));
    expect(list).toContain("fine 1.0.0 [已启用] tool:fine_tool");
    expect(list).toContain("future [加载失败]");
    const ask = () => qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: mention("hi") });
    expect(await toolsSeenIn(ask)).toEqual(["fine_tool"]);
  });

  it("answers commands without the model: ping, /help, arguments and admin-only", async () => {
    sandbox = new PluginSandbox();
    sandbox.add(
      "echo",
      {
        "index.ts": classPlugin(
          `
  @Command("echo", { description: "复读", usage: "<文字…>" })
  echo(context: CommandContext) { return context.args.map((word) => "[" + word + "]").join(""); }
  @Command("secret", { description: "管理员专用", admin_only: true })
  secret(context: CommandContext) { return "admin " + context.event.user_id + " " + this.config.greeting; }
  @Tool("echo_tool", { description: "回声工具" })
  tool() { return {}; }`,
          "Plugin, Command, Tool, type CommandContext",
        ),
      },
      { config: { type: "object", properties: { greeting: { type: "string", default: "你好" } } } },
    );
    await start({ plugins: { dirs: [sandbox.root, "./plugins"] } });
    expect(await command(ALICE, "ping 42", (text) => text.startsWith("pong"))).toBe("pong 42");
    expect(await command(ALICE, '/echo a "b c" d', (text) => text.startsWith("["))).toBe("[a][b c][d]");
    expect(await command(ADMIN, "/secret", (text) => text.startsWith("admin"))).toBe(`admin ${ADMIN} 你好`);
    const help = await command(ALICE, "/help", (text) => text.startsWith("命令"));
    expect(help).toContain("/echo <文字…> — 复读");
    expect(help).toContain("ping | /ping [文字]");
    // The summary command is a host command of the registry like /help.
    expect(help).toContain("/summary | /总结 [条数] — 总结最近的聊天记录");
    expect(help).not.toContain("/secret");
    expect(help).toContain("echo_tool（echo）— 回声工具");
    expect(help).toContain("current_time（clock）");
    expect(llm.requests).toHaveLength(0);
  });

  it("sends what the SDK's segment helpers build: the reply dict form's voice, image and @ segments as OneBot's", async () => {
    const wav = Buffer.alloc(44);
    wav.write("RIFF", 0, "ascii");
    wav.write("WAVE", 8, "ascii");
    sandbox = new PluginSandbox();
    sandbox.add("speaker", {
      "index.ts": classPlugin(
        `
  @Command("speak")
  speak() {
    const wav = Buffer.from("${wav.toString("base64")}", "base64");
    return [At("${ALICE}"), Text("听："), Voice(wav, "你好"), Image(Buffer.from("png")), Image("https://example.com/a.png")];
  }`,
        "Plugin, Command, At, Image, Text, Voice",
      ),
    });
    await start();
    qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: plain("/speak") });
    const sent = await qq.waitForSent((message) => message.text === "听：", 15_000);
    expect(sent.message).toEqual([
      { type: "at", data: { qq: ALICE } },
      { type: "text", data: { text: "听：" } },
      { type: "record", data: { file: `base64://${wav.toString("base64")}` } },
      { type: "image", data: { file: `base64://${Buffer.from("png").toString("base64")}` } },
      { type: "image", data: { file: "https://example.com/a.png" } },
    ]);
  });
});
