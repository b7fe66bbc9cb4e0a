import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { pluginStatus } from "../support/bot-api.ts";
import { type BotHarness, startBot } from "../support/bot-harness.ts";
import { ALICE, GROUP, mention } from "../support/messages.ts";
import type { OneBotStandIn } from "../support/onebot-standin.ts";
import { type Scene, startScene } from "../support/scene.ts";
import type { ScriptedLlmServer } from "../support/scripted-llm-server.ts";
import { waitFor } from "../support/wait.ts";
import { nodeStdioPlugin, PluginSandbox, SUPERVISED_PLUGIN } from "./stdio-fixtures.ts";

/** As the planner lists them: ordered by full name. */
const PLUGIN_TOOLS = ["crash", "echo", "hang", "noisy"];

const times = (dir: string, file: string) =>
  readFileSync(join(dir, "data", file), "utf8")
    .trim()
    .split("\n")
    .map(Number);

describe("stdio plugin supervision (the stdio protocol's error handling)", () => {
  let sandbox: PluginSandbox;
  let llm: ScriptedLlmServer;
  let bot: BotHarness;
  let scene: Scene | undefined;
  let qq: OneBotStandIn;

  const start = async (manifest: Record<string, unknown> = {}) => {
    sandbox = new PluginSandbox();
    const folder = nodeStdioPlugin(sandbox, "sup", SUPERVISED_PLUGIN, manifest);
    scene = await startScene({ config: { plugins: { dirs: [sandbox.root] } } });
    ({ llm, bot, qq } = scene);
    return folder;
  };
  const ask = (text: string) =>
    qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, nickname: "Alice", message: mention(text) });
  /** Resolves once `plugin`'s process is running again after its `restarts`-th restart. */
  const runningAgain = (plugin: string, restarts: number) =>
    bot.waitForEvent(
      "plugin.process",
      ({ data }) => data.plugin === plugin && data.state === "running" && data.restarts === restarts,
    );
  const toolResult = (index: number) =>
    String(llm.requests[index]!.body.messages.find((message) => message.role === "tool")?.content);
  const pluginTools = (index: number) =>
    llm.requests[index]!.toolNames.filter((name) => PLUGIN_TOOLS.includes(name));

  afterEach(async () => {
    await scene?.close();
    scene = undefined;
    sandbox.remove();
  });

  it("marks a crashed plugin errored, drops its tools at once and restarts it with backoff", async () => {
    const folder = await start();
    folder.write("data/fail-next", "1"); // the first restart's activation is refused
    const firstPid = (await pluginStatus(bot, "sup")).process!.pid!;
    llm.enqueue(
      { toolCalls: [{ name: "crash", arguments: {} }] },
      { toolCalls: [{ name: "no_reply", arguments: { reason: "插件坏了" } }] },
    );
    ask("崩一下");
    await bot.turnFinished(1);
    expect(pluginTools(0)).toEqual(PLUGIN_TOOLS);
    expect(toolResult(1)).toContain("工具 crash 出错");
    expect(toolResult(1)).toContain("the plugin process closed its stdout");
    // The very next planner request, in the same turn, no longer offers the dead plugin's tools.
    expect(pluginTools(1)).toEqual([]);
    const errored = await pluginStatus(bot, "sup");
    expect(errored.state).toBe("enabled");
    expect(errored.process).toMatchObject({ state: "errored", failures: 1, restarts: 0 });
    expect(errored.process!.lastError).toContain("exited with code 3");

    await waitFor(() => times(folder.dir, "activations.log").length === 3, 6_000);
    const [crashedAt] = times(folder.dir, "crashes.log");
    const [, firstRetry, secondRetry] = times(folder.dir, "activations.log");
    expect(firstRetry! - crashedAt!).toBeGreaterThanOrEqual(950);
    expect(firstRetry! - crashedAt!).toBeLessThan(1_600);
    expect(secondRetry! - firstRetry!).toBeGreaterThanOrEqual(1_950);
    expect(secondRetry! - firstRetry!).toBeLessThan(2_600);
    await runningAgain("sup", 2);
    const back = await pluginStatus(bot, "sup");
    // The series of failures is forgotten only once a process has stayed up a minute.
    expect(back.process).toMatchObject({ state: "running", failures: 2, restarts: 2 });
    expect(back.process!.pid).not.toBe(firstPid);

    // Two calls in one answer: the plugin takes one at a time, each answer goes to its call.
    llm.enqueue(
      {
        toolCalls: [
          { name: "echo", arguments: { text: "又活了" } },
          { name: "echo", arguments: { text: "第二个" } },
        ],
      },
      { toolCalls: [{ name: "reply", arguments: {} }] },
      { text: "好了" },
    );
    ask("回声");
    await qq.waitForSent(undefined, 8_000);
    expect(pluginTools(2)).toEqual(PLUGIN_TOOLS);
    const results = llm.requests[3]!.body.messages.filter((message) => message.role === "tool");
    expect(results.map((message) => message.content)).toEqual(["echo: 又活了", "echo: 第二个"]);
  });

  it("fails a call past the manifest timeout and restarts the process", async () => {
    await start({ timeout: 600 });
    const firstPid = (await pluginStatus(bot, "sup")).process!.pid!;
    llm.enqueue(
      { toolCalls: [{ name: "hang", arguments: {} }] },
      { toolCalls: [{ name: "no_reply", arguments: { reason: "超时了" } }] },
    );
    const askedAt = Date.now();
    ask("卡住");
    await bot.turnFinished(1);
    expect(Date.now() - askedAt).toBeLessThan(3_000);
    expect(toolResult(1)).toContain("工具 hang 出错：execute_tool timed out after 600 ms");
    expect(pluginTools(1)).toEqual([]);
    await runningAgain("sup", 1);
    const back = await pluginStatus(bot, "sup");
    expect(back.process).toMatchObject({ state: "running", restarts: 1 });
    expect(back.process!.pid).not.toBe(firstPid);
    expect(back.process!.lastError).toContain("timed out");
  });

  it("skips lines that are not JSON objects and refuses a line over 1 MB without losing the plugin", async () => {
    await start();
    const pid = (await pluginStatus(bot, "sup")).process!.pid;
    llm.enqueue(
      { toolCalls: [{ name: "noisy", arguments: {} }] },
      { toolCalls: [{ name: "no_reply", arguments: { reason: "好" } }] },
    );
    ask("吵一下");
    await bot.turnFinished(1);
    expect(toolResult(1)).toBe("still here");
    expect(bot.logs.some((line) => line.msg === "plugin wrote a line that is not JSON; skipped")).toBe(true);
    expect(
      bot.logs.some((line) => line.msg === "plugin wrote a line that is not a JSON object; skipped"),
    ).toBe(true);
    const refused = bot.logs.find((line) => String(line.msg).includes("more than the 1 MB limit"));
    expect(refused?.plugin).toBe("sup");
    expect(Number(refused?.bytes)).toBeGreaterThan(1_100_000);
    const status = await pluginStatus(bot, "sup");
    expect(status.process).toMatchObject({ state: "running", restarts: 0, pid });
    expect(status.widgets).toBeUndefined();
  });
});

describe("stdio plugins that cannot start", () => {
  let sandbox: PluginSandbox;
  let bot: BotHarness;

  afterEach(async () => {
    await bot?.dispose();
    sandbox.remove();
  });

  it("retries a first activation that answers an error or whose command does not exist, and keeps the bot up", async () => {
    sandbox = new PluginSandbox();
    nodeStdioPlugin(
      sandbox,
      "refuses",
      `process.stdin.once("data", () => process.stdout.write('{"error": "something went wrong"}\\n'));`,
    );
    sandbox.add("missing", {}, { runtime: "stdio", entry: "no-such-interpreter-xyz plugin.py" });
    nodeStdioPlugin(sandbox, "fine", SUPERVISED_PLUGIN);
    bot = await startBot({ config: { plugins: { dirs: [sandbox.root] } } });
    const refuses = await pluginStatus(bot, "refuses");
    expect(refuses.state).toBe("enabled");
    expect(refuses.process).toMatchObject({
      state: "errored",
      failures: 1,
      lastError: expect.stringContaining("activation failed: something went wrong"),
      nextRetryAt: expect.any(Number),
    });
    const missing = await pluginStatus(bot, "missing");
    expect(missing.process).toMatchObject({
      state: "errored",
      lastError: expect.stringContaining('command "no-such-interpreter-xyz" not found'),
      nextRetryAt: expect.any(Number),
    });
    expect((await pluginStatus(bot, "fine")).process).toMatchObject({ state: "running" });
  });
});

describe("stdio plugin retry limits", () => {
  let sandbox: PluginSandbox;
  let bot: BotHarness;

  afterEach(async () => {
    await bot?.dispose();
    sandbox.remove();
  });

  it("never restarts with autoRetry off, and gives up after maxRetries failed activations", async () => {
    sandbox = new PluginSandbox();
    const off = nodeStdioPlugin(sandbox, "off", SUPERVISED_PLUGIN, { autoRetry: false });
    const limited = nodeStdioPlugin(sandbox, "limited", SUPERVISED_PLUGIN, { maxRetries: 1 });
    bot = await startBot({ config: { plugins: { dirs: [sandbox.root] } } });
    limited.write("data/fail-next", "9"); // every restart's activation is refused
    process.kill((await pluginStatus(bot, "off")).process!.pid!, "SIGKILL");
    process.kill((await pluginStatus(bot, "limited")).process!.pid!, "SIGKILL");

    await bot.waitForEvent(
      "plugin.process",
      (event) => event.data.plugin === "limited" && event.data.state === "failed",
    );
    expect(times(limited.dir, "activations.log")).toHaveLength(2); // the first one and one retry
    const limitedStatus = await pluginStatus(bot, "limited");
    expect(limitedStatus.process).toMatchObject({ state: "failed", failures: 2, restarts: 1 });
    expect(limitedStatus.process!.nextRetryAt).toBeUndefined();
    expect(limitedStatus.components).toEqual([]);

    const offLog = bot.logs.find((line) => line.msg === "plugin process not restarted: autoRetry is off");
    expect(offLog?.plugin).toBe("off");
    expect(times(off.dir, "activations.log")).toHaveLength(1);
    const offStatus = await pluginStatus(bot, "off");
    expect(offStatus.process).toMatchObject({ state: "failed", failures: 1, restarts: 0 });
    expect(offStatus.process!.lastError).toContain("was killed by SIGKILL");
    expect(offStatus.process!.nextRetryAt).toBeUndefined();
    expect(offStatus.components).toEqual([]);
  });
});
