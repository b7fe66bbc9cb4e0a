/**
 * Stdio plugin faults: a crash loop backs off and gives up, a failed first
 * activation is retried, a plugin that never activates holds up neither OneBot nor /healthz,
 * a bad declaration costs only itself, an oversized answer fails its call at once. Each
 * trigger is answered exactly once.
 *
 * A plugin that hangs during a call (the call times out, the process is restarted) is pinned
 * by test/stdio/supervision.e2e.test.ts "fails a call past the manifest timeout and restarts
 * the process".
 */
import { afterEach, describe, expect, it } from "vitest";
import type { MonitorEvent } from "../../src/monitor/monitor.ts";
import {
  ECHO_TOOL,
  faultPlugin,
  nodeStdioPlugin,
  PluginSandbox,
  processesIn,
  SUPERVISED_PLUGIN,
} from "../stdio/stdio-fixtures.ts";
import { pluginStatus } from "../support/bot-api.ts";
import { type BotHarness, startBot } from "../support/bot-harness.ts";
import { type BotProcess, startBotProcess } from "../support/bot-process.ts";
import { ALICE, GROUP, mention, SELF } from "../support/messages.ts";
import { OneBotStandIn } from "../support/onebot-standin.ts";
import { ScriptedLlmServer } from "../support/scripted-llm-server.ts";
import { waitFor } from "../support/wait.ts";

const ADMIN = "39999";

describe("stdio plugin faults", () => {
  let sandbox: PluginSandbox;
  let llm: ScriptedLlmServer;
  let bot: BotHarness;
  let qq: OneBotStandIn;

  const start = async () => {
    llm = await ScriptedLlmServer.start();
    bot = await startBot({ llm, config: { plugins: { dirs: [sandbox.root] } } });
    qq = new OneBotStandIn({ selfId: SELF });
    await qq.connectReverse(bot.wsUrl);
  };
  const ask = (text: string) =>
    qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, nickname: "Alice", message: mention(text) });
  const toolResult = (index: number) =>
    String(llm.requests[index]!.body.messages.find((message) => message.role === "tool")?.content);
  const isProcessState = (event: MonitorEvent, plugin: string, state: string) =>
    event.type === "plugin.process" && event.data.plugin === plugin && event.data.state === state;
  /** Waits until the plugin's process reaches `state`. */
  const processState = (plugin: string, state: string, timeoutMs?: number) =>
    bot.waitForEvent("plugin.process", (event) => isProcessState(event, plugin, state), timeoutMs);

  afterEach(async () => {
    await qq?.close();
    await bot?.dispose();
    await llm?.close();
    sandbox.remove();
  });

  it("backs a crash loop off further each time and gives up after maxRetries", async () => {
    sandbox = new PluginSandbox();
    // Activates fine, then dies 100 ms later: each activation succeeds, none lasts.
    faultPlugin(sandbox, "loop", { crashAfterActivateMs: 100, tools: [ECHO_TOOL] }, { maxRetries: 3 });
    await start();
    await processState("loop", "failed", 15_000);

    const activatedAt = bot.events
      .filter((event) => isProcessState(event, "loop", "running"))
      .map((event) => event.time);
    expect(activatedAt).toHaveLength(4); // the first activation and three retries, then no more
    const gaps = activatedAt.slice(1).map((at, index) => at - activatedAt[index]!);
    expect(gaps[0]).toBeGreaterThanOrEqual(1_000);
    expect(gaps[1]).toBeGreaterThanOrEqual(2_000);
    expect(gaps[2]).toBeGreaterThanOrEqual(4_000);
    const delays = bot.logs
      .filter((line) => line.plugin === "loop" && String(line.msg).startsWith("plugin process restarts in"))
      .map((line) => line.delayMs);
    expect(delays).toEqual([1_000, 2_000, 4_000]);

    const status = await pluginStatus(bot, "loop");
    expect(status.process).toMatchObject({ state: "failed", failures: 4, restarts: 3 });
    expect(status.process!.lastError).toContain("exited with code 3");
    expect(status.process!.nextRetryAt).toBeUndefined();
    expect(status.components).toEqual([]);
  });

  it("retries a first activation that fails, and the plugin's tools work once it succeeds", async () => {
    sandbox = new PluginSandbox();
    const folder = nodeStdioPlugin(sandbox, "late", SUPERVISED_PLUGIN);
    folder.write("data/fail-next", "1"); // the first activation is refused, the second succeeds
    await start();
    const refused = await pluginStatus(bot, "late");
    expect(refused.state).toBe("enabled");
    expect(refused.process).toMatchObject({ state: "errored", failures: 1 });
    expect(refused.process!.lastError).toContain("activation failed: not ready yet");

    await processState("late", "running");
    llm.enqueue(
      { toolCalls: [{ name: "echo", arguments: { text: "终于" } }] },
      { toolCalls: [{ name: "reply", arguments: {} }] },
      { text: "好了" },
    );
    ask("回声");
    await bot.turnFinished();
    expect(llm.requests[0]!.toolNames).toContain("echo");
    expect(toolResult(1)).toBe("echo: 终于");
    expect(qq.sent.map((sent) => sent.text)).toEqual(["好了"]);
  });

  it("leaves out a bad declaration with a log line naming it and loads the rest", async () => {
    sandbox = new PluginSandbox();
    faultPlugin(sandbox, "mixed", {
      tools: [
        ECHO_TOOL,
        { name: "nodesc", parameters: [] },
        { name: "badschema", description: "Bad", parameters: { type: "no-such-type" } },
        { name: "echo", description: "Echo again", parameters: [] },
        { description: "No name" },
      ],
    });
    await start();
    const status = await pluginStatus(bot, "mixed");
    expect(status.components.map((component) => component.name)).toEqual(["echo"]);
    const skipped = bot.logs
      .filter(
        (line) => line.plugin === "mixed" && String(line.msg).startsWith("plugin declaration skipped: "),
      )
      .map((line) => String(line.msg));
    expect(skipped).toHaveLength(4);
    expect(skipped[0]).toContain('tool "nodesc"');
    expect(skipped[0]).toContain("needs a description");
    expect(skipped[1]).toContain('tool "badschema"');
    expect(skipped[2]).toContain('tool "echo": the name "echo" is declared twice');
    expect(skipped[3]).toContain("tool #5");
    expect(status.process).toMatchObject({ state: "running" });
    expect(status.process!.lastError).toContain('declarations skipped: tool "nodesc"');

    llm.enqueue(
      { toolCalls: [{ name: "echo", arguments: { text: "在" } }] },
      { toolCalls: [{ name: "no_reply", arguments: { reason: "好" } }] },
    );
    ask("回声");
    await bot.turnFinished();
    expect(toolResult(1)).toBe("echo: 在");
  });

  it("fails a call whose answer is over 1 MB at once, tells the model, and keeps the plugin", async () => {
    sandbox = new PluginSandbox();
    faultPlugin(
      sandbox,
      "bulky",
      { tools: [ECHO_TOOL, { name: "big", description: "A huge answer", parameters: [] }] },
      { timeout: 10_000 },
    );
    await start();
    const pid = (await pluginStatus(bot, "bulky")).process!.pid;
    llm.enqueue(
      { toolCalls: [{ name: "big", arguments: {} }] },
      { toolCalls: [{ name: "echo", arguments: { text: "还在吗" } }] },
      { toolCalls: [{ name: "reply", arguments: {} }] },
      { text: "太大了" },
    );
    const askedAt = Date.now();
    ask("来个大的");
    await bot.turnFinished();
    // Well under the 10 s timeout: the call failed as the line passed the limit.
    expect(Date.now() - askedAt).toBeLessThan(4_000);
    expect(toolResult(1)).toContain("工具 big 出错");
    expect(toolResult(1)).toContain("longer than 1048576 bytes");
    expect(
      llm.requests[2]!.body.messages.filter((message) => message.role === "tool").map((m) => m.content),
    ).toContain("echo: 还在吗");
    expect(qq.sent.map((sent) => sent.text)).toEqual(["太大了"]);
    const status = await pluginStatus(bot, "bulky");
    expect(status.process).toMatchObject({ state: "running", restarts: 0, pid });
  });
});

describe("a stdio plugin that never answers activate (the bot as its own process)", () => {
  let sandbox: PluginSandbox;
  let llm: ScriptedLlmServer;
  let bot: BotProcess;
  let qq: OneBotStandIn;

  afterEach(async () => {
    await qq?.close();
    await bot?.dispose();
    await llm?.close();
    sandbox.remove();
  });

  it("holds up neither OneBot nor /healthz, shows as activating, fails at its timeout, and shutdown is clean", async () => {
    sandbox = new PluginSandbox();
    // Its timeout leaves a loaded machine time to start the bot and ask for the status first.
    faultPlugin(sandbox, "sleepy", { neverActivate: true }, { timeout: 6_000, autoRetry: false });
    const slow = faultPlugin(sandbox, "slow", { neverActivate: true }); // 30 s default timeout
    llm = await ScriptedLlmServer.start();
    bot = await startBotProcess({
      llm,
      config: { plugins: { dirs: [sandbox.root] }, bot: { admins: [ADMIN] } },
    });
    const runningAt = Date.now();
    const health = await fetch(`${bot.baseUrl}/healthz`);
    expect(health.status).toBe(200);
    qq = new OneBotStandIn({ selfId: SELF });
    await qq.connectReverse(bot.wsUrl);
    expect(Date.now() - runningAt).toBeLessThan(1_000);
    // Plugins load in the background after start-up, one after another: until its manifest is
    // read, a plugin is listed without one (as failed, with no error).
    await waitFor(
      async () => (await pluginStatus(bot, "sleepy")).process !== undefined,
      3_000,
      "sleepy to be loaded",
    );
    expect(await pluginStatus(bot, "sleepy")).toMatchObject({
      state: "enabled",
      process: { state: "starting" },
    });

    // A message meanwhile is answered, once, without the plugins' tools.
    llm.enqueue({ toolCalls: [{ name: "reply", arguments: {} }] }, { text: "在的" });
    qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: mention("在吗") });
    await qq.waitForSent((sent) => sent.text === "在的", 8_000);
    expect(llm.requests[0]!.toolNames).not.toContain("echo");
    qq.pushGroupMessage({
      groupId: GROUP,
      userId: ADMIN,
      message: [{ type: "text", data: { text: "/plugins" } }],
    });
    const listed = await qq.waitForSent((sent) => sent.text.includes("slow"), 8_000);
    expect(listed.text).toContain("进程：激活中");

    // The process is separate: its monitor is out of reach, the console API is not.
    await waitFor(
      async () => (await pluginStatus(bot, "sleepy")).process?.state === "failed",
      10_000,
      "sleepy's activation to time out",
    );
    const sleepy = await pluginStatus(bot, "sleepy");
    expect(sleepy.process!.lastErrorAt! - runningAt).toBeLessThan(7_000);
    expect(sleepy.process!.lastError).toContain("activation failed: activate timed out after 6000 ms");
    expect((await pluginStatus(bot, "slow")).process).toMatchObject({ state: "starting" });

    // Shut down while "slow" is still activating: its process is ended, the bot exits cleanly and soon.
    expect(processesIn(slow.dir)).not.toEqual([]);
    const stoppingAt = Date.now();
    expect(await bot.kill("SIGTERM")).toEqual({ code: 0, signal: null });
    expect(Date.now() - stoppingAt).toBeLessThan(3_000);
    await waitFor(() => processesIn(slow.dir).length === 0, 2_000, "slow's process to end");
    expect(qq.sent.filter((sent) => sent.text === "在的")).toHaveLength(1);
  });
});
