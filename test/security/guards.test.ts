/**
 * Guards fail closed: a PreToolUse or UserPromptSubmit hook that cannot answer stops what it
 * guards, the model is told why, and the timeline shows which hook failed and how.
 */
import { afterEach, describe, expect, it } from "vitest";
import { classPlugin, PluginSandbox } from "../plugins/plugin-fixtures.ts";
import { nodeStdioPlugin } from "../stdio/stdio-fixtures.ts";
import { pluginStatus, timelineOf } from "../support/bot-api.ts";
import { ALICE, GROUP, mention, SELF } from "../support/messages.ts";
import { type Scene, startScene } from "../support/scene.ts";
import { waitFor } from "../support/wait.ts";

const probe = globalThis as { guardProbe?: { deleted: string[] } };
const deleted = () => probe.guardProbe?.deleted ?? [];

/** The tool the guards stand in front of; it notes every path it "deletes". */
function addShell(sandbox: PluginSandbox): void {
  sandbox.add("shell", {
    "index.ts": classPlugin(`
  @Tool("delete_file", { description: "删除文件", parameters: { path: { type: "string" } } })
  async remove(args: { path: string }) {
    ((globalThis as any).guardProbe ??= { deleted: [] }).deleted.push(args.path);
    return { deleted: args.path };
  }`),
  });
}

function addGuard(sandbox: PluginSandbox, body: string): void {
  sandbox.add("guard", { "index.ts": classPlugin(body, "Plugin, Hook") });
}

const deleteCall = (path: string) => ({ toolCalls: [{ name: "delete_file", arguments: { path } }] });
const noReply = { toolCalls: [{ name: "no_reply", arguments: { reason: "好了" } }] };

describe("guards fail closed", () => {
  let sandbox: PluginSandbox;
  let scene: Scene | undefined;

  afterEach(async () => {
    await scene?.close();
    scene = undefined;
    sandbox.remove();
    delete probe.guardProbe;
  });

  const start = async () => {
    scene = await startScene({ config: { plugins: { dirs: [sandbox.root] } }, selfId: SELF });
    return scene;
  };
  const toolResult = (index: number) =>
    String(scene!.llm.requests[index]!.body.messages.findLast((message) => message.role === "tool")!.content);

  it.each([
    [
      "runs past its timeout",
      `@Hook("check", { event: "PreToolUse", matcher: "delete_*", timeout_ms: 200 })
  async check() { await new Promise((resolve) => setTimeout(resolve, 1_000)); return { decision: "allow" }; }`,
      "timed out after 200 ms",
    ],
    [
      "throws",
      `@Hook("check", { event: "PreToolUse", matcher: "delete_*" })
  check() { throw new Error("规则文件读不到"); }`,
      "规则文件读不到",
    ],
    [
      "answers a decision that does not exist",
      `@Hook("check", { event: "PreToolUse", matcher: "delete_*" })
  check() { return { decision: "maybe" }; }`,
      'answered {"decision":"maybe"}',
    ],
  ])("a PreToolUse hook that %s stops the tool and the model is told why", async (_case, hook, failure) => {
    sandbox = new PluginSandbox();
    addShell(sandbox);
    addGuard(sandbox, hook);
    const { llm, bot, qq } = await start();
    llm.enqueue(deleteCall("/srv/data"), noReply);
    qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: mention("把 /srv/data 删了") });
    const turn = await bot.turnFinished(1);

    expect(deleted()).toEqual([]);
    expect(toolResult(1)).toMatch(/^调用被拒绝：检查钩子 guard\.check 没能作出判断（.+），为安全起见不放行$/);
    expect(toolResult(1)).toContain(failure);
    const decision = (await timelineOf(bot, String(turn.replyId))).find(
      (event) => event.type === "hook.decision",
    );
    expect(decision?.data).toMatchObject({ event: "PreToolUse", tool: "delete_file", decision: "deny" });
    const [entry] = decision?.data.hooks as Array<{ hook: string; decision: string; failure: string }>;
    expect(entry).toMatchObject({ hook: "guard.check", decision: "deny" });
    expect(entry!.failure).toContain(failure);
  });

  it("keeps the guard of a crashed stdio plugin: the guarded tool does not run while it is down", async () => {
    sandbox = new PluginSandbox();
    addShell(sandbox);
    nodeStdioPlugin(
      sandbox,
      "sentinel",
      `
const readline = require("node:readline");
const write = (message) => process.stdout.write(JSON.stringify(message) + "\\n");
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const { method } = JSON.parse(line);
  if (method === "activate") return write({ hooks: [{ event: "PreToolUse", matcher: "delete_*" }] });
  if (method === "hook") return write({ hook_result: { decision: "allow" } });
  write({ result: "ok" });
});
`,
      { autoRetry: false },
    );
    const { llm, bot, qq } = await start();
    const { pid } = (await pluginStatus(bot, "sentinel")).process!;
    process.kill(pid!, "SIGKILL");
    // autoRetry is off: the process is given up ("failed") and stays down.
    await waitFor(async () => (await pluginStatus(bot, "sentinel")).process?.state === "failed");

    llm.enqueue(deleteCall("/srv/data"), noReply);
    qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: mention("把 /srv/data 删了") });
    await bot.turnFinished(1);
    expect(deleted()).toEqual([]);
    expect(toolResult(1)).toContain(
      "调用被拒绝：检查钩子 sentinel.PreToolUse_1 没能作出判断（the plugin sentinel is not running",
    );
  });

  it("runs a call every hook defers on, but not when one of the hooks fails", async () => {
    sandbox = new PluginSandbox();
    addShell(sandbox);
    addGuard(
      sandbox,
      `
  @Hook("first", { event: "PreToolUse", matcher: "delete_*" })
  first() { return { decision: "defer" }; }
  @Hook("second", { event: "PreToolUse", matcher: "delete_*" })
  second(input: { tool_input: { path: string } }) {
    if (input.tool_input.path.includes("boom")) throw new Error("炸了");
    return { decision: "defer" };
  }`,
    );
    const { llm, bot, qq } = await start();
    llm.enqueue(deleteCall("/tmp/a.log"), deleteCall("/tmp/boom.log"), noReply);
    qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: mention("清理一下") });
    const turn = await bot.turnFinished(1);

    expect(deleted()).toEqual(["/tmp/a.log"]);
    expect(toolResult(1)).toContain("/tmp/a.log");
    expect(toolResult(2)).toContain("调用被拒绝：检查钩子 guard.second 没能作出判断（炸了）");
    const decisions = (await timelineOf(bot, String(turn.replyId)))
      .filter((event) => event.type === "hook.decision")
      .map((event) => event.data.decision);
    expect(decisions).toEqual(["defer", "deny"]);
  });

  it("ends the turn silently when a UserPromptSubmit hook denies or fails, with the reason on the timeline", async () => {
    sandbox = new PluginSandbox();
    addGuard(
      sandbox,
      `
  @Hook("gate", { event: "UserPromptSubmit" })
  gate(input: { prompt: string }) {
    if (input.prompt.includes("禁")) return { decision: "deny", message: "不聊这个话题" };
    if (input.prompt.includes("炸")) throw new Error("关键词表坏了");
  }`,
    );
    const { llm, bot, qq } = await start();

    qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: mention("说说禁书") });
    const denied = await bot.turnFinished(1);
    expect(denied.data).toMatchObject({
      status: "silent",
      reason: "UserPromptSubmit hook guard.gate denied: 不聊这个话题",
    });
    const events = await timelineOf(bot, String(denied.replyId));
    expect(events.find((event) => event.type === "turn.finished")?.data).toMatchObject({
      status: "silent",
      reason: "UserPromptSubmit hook guard.gate denied: 不聊这个话题",
    });
    expect(events.find((event) => event.type === "hook.decision")?.data).toMatchObject({
      event: "UserPromptSubmit",
      decision: "deny",
      by: "guard.gate",
      message: "不聊这个话题",
    });

    qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: mention("炸一下") });
    const failed = await bot.turnFinished(2);
    expect(failed.data.status).toBe("silent");
    expect(String(failed.data.reason)).toContain(
      "UserPromptSubmit hook guard.gate denied: 检查钩子 guard.gate 没能作出判断（关键词表坏了）",
    );
    expect(llm.requests).toHaveLength(0);
    expect(qq.sent).toHaveLength(0);

    // A prompt the guard lets through reaches the planner as usual.
    llm.enqueue(noReply);
    qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: mention("今天天气不错") });
    await bot.turnFinished(3);
    expect(llm.requests).toHaveLength(1);
  });
});
