/**
 * Plugins ready at the first turn: plugins activate in the background after start-up, and a
 * turn that starts meanwhile waits for them (at most 5 s), so a mention that arrives right
 * after start is answered with a slow stdio plugin's tools and behind its guards. Past the
 * bound the turn goes on, and the timeline says which plugins were still activating. A guard
 * whose process is being started again (after a crash) and has not answered `activate` denies.
 */
import { afterEach, describe, expect, it } from "vitest";
import { classPlugin, PluginSandbox } from "../plugins/plugin-fixtures.ts";
import { faultPlugin, nodeStdioPlugin } from "../stdio/stdio-fixtures.ts";
import { pluginStatus } from "../support/bot-api.ts";
import { ALICE, GROUP, mention, SELF } from "../support/messages.ts";
import { type Scene, startScene } from "../support/scene.ts";
import { waitFor } from "../support/wait.ts";

const probe = globalThis as { firstTurnProbe?: { deleted: string[] } };
const deleted = () => probe.firstTurnProbe?.deleted ?? [];

/**
 * A stdio plugin that answers `activate` after `data/activate-delay-ms` (default `delayMs`),
 * declaring an `almanac` tool and a PreToolUse guard on `delete_*` that denies.
 */
function slowGuardPlugin(sandbox: PluginSandbox, delayMs: number) {
  return nodeStdioPlugin(
    sandbox,
    "sentinel",
    `
const fs = require("node:fs");
const readline = require("node:readline");
const write = (message) => process.stdout.write(JSON.stringify(message) + "\\n");
const delay = () => { try { return Number(fs.readFileSync("data/activate-delay-ms", "utf8")); } catch { return ${delayMs}; } };
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const { method } = JSON.parse(line);
  if (method === "activate") {
    return setTimeout(() => write({
      tools: [{ name: "almanac", description: "查黄历", parameters: [] }],
      hooks: [{ event: "PreToolUse", matcher: "delete_*" }],
    }), delay());
  }
  if (method === "hook") return write({ hook_result: { decision: "deny", message: "哨兵不许删" } });
  write({ result: "ok" });
});
`,
  );
}

/** An in-process tool that notes every path it "deletes". */
function addShell(sandbox: PluginSandbox): void {
  sandbox.add("shell", {
    "index.ts": classPlugin(`
  @Tool("delete_file", { description: "删除文件", parameters: { path: { type: "string" } } })
  async remove(args: { path: string }) {
    ((globalThis as any).firstTurnProbe ??= { deleted: [] }).deleted.push(args.path);
    return { deleted: args.path };
  }`),
  });
}

const deleteCall = (path: string) => ({ toolCalls: [{ name: "delete_file", arguments: { path } }] });
const noReply = { toolCalls: [{ name: "no_reply", arguments: { reason: "好了" } }] };

describe("plugins ready at the first turn", () => {
  let sandbox: PluginSandbox;
  let scene: Scene | undefined;

  afterEach(async () => {
    await scene?.close();
    scene = undefined;
    sandbox.remove();
    delete probe.firstTurnProbe;
  });

  /** The bot, answering as soon as it is up: it does not wait for its plugins, the test neither. */
  const start = async () => {
    scene = await startScene({
      config: { plugins: { dirs: [sandbox.root] } },
      selfId: SELF,
      waitForPlugins: false,
    });
    return scene;
  };
  const toolResult = (index: number) =>
    String(scene!.llm.requests[index]!.body.messages.findLast((message) => message.role === "tool")!.content);

  it("answers a mention that arrives during a stdio plugin's activation with its tools and behind its guard", async () => {
    sandbox = new PluginSandbox();
    addShell(sandbox);
    slowGuardPlugin(sandbox, 1_500);
    // The mention arrives at once: the plugin answers `activate` 1.5 s after it started.
    const { llm, bot, qq } = await start();

    llm.enqueue(deleteCall("/srv/data"), noReply);
    qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: mention("把 /srv/data 删了") });
    await bot.turnFinished(1, 10_000);

    expect(llm.requests[0]!.toolNames).toContain("almanac");
    expect(deleted()).toEqual([]);
    expect(toolResult(1)).toContain("哨兵不许删");
    expect(bot.events.some((event) => event.type === "plugins.not_ready")).toBe(false);
  });

  it("goes on after 5 s without a plugin still activating, and the timeline names it", async () => {
    sandbox = new PluginSandbox();
    faultPlugin(sandbox, "stuck", { neverActivate: true });
    const { llm, bot, qq } = await start();

    llm.enqueue(noReply);
    const mentioned = Date.now();
    qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: mention("在吗") });
    await bot.turnFinished(1, 15_000);

    expect(Date.now() - mentioned).toBeGreaterThanOrEqual(5_000);
    expect(llm.requests).toHaveLength(1);
    const notReady = bot.events.find((event) => event.type === "plugins.not_ready");
    expect(notReady?.data).toMatchObject({ activating: ["stuck"] });
    expect(Number(notReady?.data.waitedMs)).toBeGreaterThanOrEqual(5_000);
  });

  it("denies with a guard whose restarted process has not answered activate yet", async () => {
    sandbox = new PluginSandbox();
    addShell(sandbox);
    const sentinel = slowGuardPlugin(sandbox, 0);
    const { llm, bot, qq } = await start();
    await waitFor(async () => (await pluginStatus(bot, "sentinel")).process?.state === "running");

    // The next process answers `activate` only after 3 s; meanwhile its guard is asked.
    sentinel.write("data/activate-delay-ms", "3000");
    process.kill((await pluginStatus(bot, "sentinel")).process!.pid!, "SIGKILL");
    await waitFor(async () => (await pluginStatus(bot, "sentinel")).process?.state === "restarting", 5_000);

    llm.enqueue(deleteCall("/srv/data"), noReply);
    qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: mention("把 /srv/data 删了") });
    await bot.turnFinished(1, 10_000);

    expect(deleted()).toEqual([]);
    expect(toolResult(1)).toContain("调用被拒绝：检查钩子 sentinel.PreToolUse_1 没能作出判断");
    expect(toolResult(1)).toContain("still activating");
  });
});
