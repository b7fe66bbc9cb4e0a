import { afterEach, describe, expect, it } from "vitest";
import type { BotHarness } from "../support/bot-harness.ts";
import { ALICE, GROUP, mention, plain } from "../support/messages.ts";
import type { OneBotStandIn } from "../support/onebot-standin.ts";
import { type Scene, startScene } from "../support/scene.ts";
import type { ScriptedLlmServer } from "../support/scripted-llm-server.ts";
import { classPlugin, PluginSandbox } from "./plugin-fixtures.ts";

const ADMIN = "39999";

const probe = globalThis as { pluginProbe?: Record<string, unknown> };

/** A tool that counts its calls, and a hook plugin whose PreToolUse answer the test chooses. */
function writePlugins(sandbox: PluginSandbox, decision: string, extra = ""): void {
  sandbox.add("shell", {
    "index.ts": classPlugin(`
  @Tool("delete_file", { description: "删除文件", parameters: { path: { type: "string" } } })
  async remove(args: { path: string }) {
    const probe = ((globalThis as any).pluginProbe ??= { deleted: [] });
    probe.deleted.push(args.path);
    return { deleted: args.path };
  }`),
  });
  sandbox.add("guard", {
    "index.ts": classPlugin(
      `
  @Hook("guard_files", { event: "PreToolUse", matcher: "delete_*|format_*" })
  check(input: { tool_name: string; tool_input: { path: string } }) {
    return { decision: "${decision}", message: "不许删除 " + input.tool_input.path };
  }
  @Hook("audit", { event: "PostToolUse" })
  audit(input: { tool_name: string; tool_output: unknown }) {
    ((globalThis as any).pluginProbe ??= { deleted: [] }).audited = input.tool_output;
  }
  ${extra}`,
      "Plugin, Hook, Enricher",
    ),
  });
}

describe("hooks and enrichers around the planner", () => {
  let sandbox: PluginSandbox;
  let llm: ScriptedLlmServer;
  let bot: BotHarness;
  let scene: Scene | undefined;
  let qq: OneBotStandIn;

  const start = async () => {
    scene = await startScene({ config: { plugins: { dirs: [sandbox.root] }, bot: { admins: [ADMIN] } } });
    ({ llm, bot, qq } = scene);
  };
  const toolResult = (index: number) =>
    String(llm.requests[index]!.body.messages.find((message) => message.role === "tool")!.content);

  afterEach(async () => {
    await scene?.close();
    scene = undefined;
    sandbox.remove();
    delete probe.pluginProbe;
  });

  it("tells the model a call was refused when a PreToolUse hook denies it", async () => {
    sandbox = new PluginSandbox();
    writePlugins(sandbox, "deny");
    await start();
    llm.enqueue(
      { toolCalls: [{ name: "delete_file", arguments: { path: "/etc/passwd" } }] },
      { toolCalls: [{ name: "reply", arguments: {} }] },
      { text: "这个不能删" },
    );
    qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: mention("删掉 /etc/passwd") });
    const sent = await qq.waitForSent(undefined, 8_000);
    expect(sent.text).toBe("这个不能删");
    expect(toolResult(1)).toContain("调用被拒绝：不许删除 /etc/passwd");
    expect(probe.pluginProbe?.deleted ?? []).toEqual([]);
  });

  it("waits for an admin's /approve when a hook asks, then runs the tool", async () => {
    sandbox = new PluginSandbox();
    writePlugins(sandbox, "ask");
    await start();
    llm.enqueue(
      { toolCalls: [{ name: "delete_file", arguments: { path: "/tmp/old.log" } }] },
      { toolCalls: [{ name: "reply", arguments: {} }] },
      { text: "删好了" },
    );
    qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: mention("删掉 /tmp/old.log") });
    const request = await qq.waitForSent((s) => String(s.text).includes("/approve"), 8_000);
    expect(request.text).toContain("不许删除 /tmp/old.log");
    const id = /\/approve (\w+)/.exec(String(request.text))![1]!;
    // Someone who is not an admin cannot approve.
    qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: plain(`/approve ${id}`) });
    await qq.waitForSent((s) => String(s.text).includes("只有管理员"), 5_000);
    expect(probe.pluginProbe?.deleted ?? []).toEqual([]);
    qq.pushGroupMessage({ groupId: GROUP, userId: ADMIN, message: plain(`/approve ${id}`) });
    await qq.waitForSent((s) => s.text === `已批准 ${id}。`, 5_000);
    await qq.waitForSent((s) => s.text === "删好了", 8_000);
    expect(probe.pluginProbe).toMatchObject({
      deleted: ["/tmp/old.log"],
      audited: { deleted: "/tmp/old.log" },
    });
    expect(toolResult(1)).toContain("/tmp/old.log");
  });

  it("puts enricher text after the chat in the planner's request and skips a slow enricher, aborting its signal", async () => {
    sandbox = new PluginSandbox();
    writePlugins(
      sandbox,
      "allow",
      `
  @Enricher("weather_now", { description: "当前天气" })
  weather() { return "今天下雨，出门带伞。"; }
  @Enricher("slow", { timeout_ms: 100 })
  async slow(context: { signal: AbortSignal }) {
    context.signal.addEventListener("abort", () => {
      ((globalThis as any).pluginProbe ??= { deleted: [] }).slowAborted = context.signal.reason.message;
    });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    return "太慢了";
  }`,
    );
    await start();
    llm.enqueue({ toolCalls: [{ name: "no_reply", arguments: { reason: "测试" } }] });
    const started = Date.now();
    qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: mention("出门要带什么") });
    expect((await bot.turnFinished()).data.status).toBe("silent");
    expect(Date.now() - started).toBeLessThan(900);
    // Enrichments change every turn: after the chat, so the prompt's cached prefix stays.
    const request = String(llm.requests[0]!.body.messages[1]!.content);
    expect(request).toMatch(
      /## 新消息[\s\S]*## weather_now（插件 guard 提供的补充信息）\n今天下雨，出门带伞。/,
    );
    expect(request).not.toContain("太慢了");
    const skipped = bot.logs.find((line) => line.msg === "enricher skipped: timed out after 100 ms");
    expect(skipped?.enricher).toBe("guard.slow");
    // The enricher's own signal told it to stop, so its request can be cancelled.
    expect(probe.pluginProbe?.slowAborted).toBe("timed out after 100 ms");
  });
});
