import { chmodSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { classPlugin, PluginSandbox } from "../plugins/plugin-fixtures.ts";
import { apiClient } from "../support/api-client.ts";
import { ALICE, GROUP, mention } from "../support/messages.ts";
import { type Scene, startScene } from "../support/scene.ts";
import { STDIO_SERVER_COMMAND, serverState, toolResults } from "./mcp-fixtures.ts";

/** MCP servers' tools in conversations over OneBot, like plugin tools. */
describe("MCP tools over stdio", () => {
  let scene: Scene | undefined;
  let sandbox: PluginSandbox | undefined;
  const folders: string[] = [];

  afterEach(async () => {
    await scene?.close();
    scene = undefined;
    sandbox?.remove();
    sandbox = undefined;
    for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
  });

  const start = async (
    server: Record<string, unknown> = {},
    config: Record<string, unknown> = {},
    configFile = false,
  ) => {
    scene = await startScene({
      configFile,
      config: { mcp: { servers: [{ id: "demo", command: STDIO_SERVER_COMMAND, ...server }] }, ...config },
    });
    await serverState(scene.bot, "demo", "connected");
    return scene;
  };
  const ask = (text: string) =>
    scene!.qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, nickname: "Alice", message: mention(text) });

  it("calls an MCP tool in a conversation and replies with what it returned", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "mcp-cwd-"));
    // Readable by all, as a server's folder is: a bot running as root starts it as another user.
    chmodSync(cwd, 0o755);
    folders.push(cwd);
    const { llm, qq, bot } = await start({ cwd, env: { MCP_MARK: "marked" } });
    llm.enqueue(
      { toolCalls: [{ name: "mcp__demo__weather", arguments: { city: "上海" } }] },
      (request) => ({
        toolCalls: [{ name: "reply", arguments: { intent: `照实说：${toolResults(request)[0]}` } }],
      }),
      (request) => ({ text: `查到了，${/上海: [^"\\\n]+/.exec(request.promptText)?.[0] ?? "没查到"}` }),
    );
    ask("上海天气怎么样");
    const sent = await qq.waitForSent(undefined, 10_000);
    expect(sent.text).toBe("查到了，上海: sunny, 25°C");
    expect(llm.requests[0]!.toolNames).toContain("mcp__demo__weather");
    // The timeline shows the call like any tool's.
    const called = await bot.waitForEvent("tool.called", (event) => event.data.name === "mcp__demo__weather");
    expect(called.data.output).toBe("上海: sunny, 25°C");

    // Started in its folder with its environment.
    llm.enqueue(
      { toolCalls: [{ name: "mcp__demo__whereami", arguments: {} }] },
      { toolCalls: [{ name: "no_reply", arguments: { reason: "done" } }] },
    );
    ask("你在哪");
    await bot.turnFinished(2);
    expect(toolResults(llm.requests[4]!)[0]).toBe(`${cwd} marked`);
  });

  it("lists the server under /plugins and the console's plugin and MCP pages, and switches a tool off", async () => {
    const { llm, bot, qq } = await start(
      { env: { MCP_BROKEN_TOOL: "1" } },
      { bot: { admins: [ALICE] } },
      true,
    );
    const api = apiClient(bot.baseUrl);
    const mcp = await api.get("/api/mcp");
    expect(mcp.body.servers[0]).toMatchObject({ id: "demo", state: "connected", transport: "stdio" });
    const tools = mcp.body.servers[0].tools as Array<{ modelName: string; enabled: boolean; error?: string }>;
    expect(tools.find((tool) => tool.modelName === "mcp__demo__echo")).toMatchObject({ enabled: true });
    // A tool whose schema cannot be checked is shown with why, and not offered.
    const broken = tools.find((tool) => tool.modelName === "mcp__demo__broken");
    expect(broken).toMatchObject({ enabled: false });
    expect(broken?.error).toContain("schema is invalid");
    const plugins = await api.get("/api/plugins");
    const listed = plugins.body.plugins.find((plugin: { id: string }) => plugin.id === "mcp:demo");
    expect(listed).toMatchObject({ runtime: "mcp", state: "enabled", name: "tsumugi-test-mcp" });
    expect(listed.process.state).toBe("running");

    const disabled = await api.post("/api/plugins/mcp:demo.echo/disable", {});
    expect(disabled.status).toBe(200);
    // Kept in plugins.disabled, like a plugin component's switch.
    expect(disabled.body.persisted).toBe(true);
    expect(readFileSync(bot.configFile!, "utf8")).toContain("mcp:demo.echo");
    llm.enqueue({ toolCalls: [{ name: "no_reply", arguments: { reason: "quiet" } }] });
    ask("在吗");
    await bot.turnFinished();
    expect(llm.requests[0]!.toolNames).not.toContain("mcp__demo__echo");
    expect(llm.requests[0]!.toolNames).toContain("mcp__demo__weather");
    expect(llm.requests[0]!.toolNames).not.toContain("mcp__demo__broken");

    // The admin command sees it too.
    qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: "/plugins list" });
    const listing = await qq.waitForSent((message) => message.text.includes("mcp:demo"), 5_000);
    expect(listing.text).toContain("tool:mcp__demo__echo(停用)");
  });

  it("keeps a server switched off in plugins.disabled stopped until it is enabled", async () => {
    scene = await startScene({
      config: {
        mcp: { servers: [{ id: "demo", command: STDIO_SERVER_COMMAND }] },
        plugins: { disabled: ["mcp:demo"] },
      },
    });
    const api = apiClient(scene.bot.baseUrl);
    expect((await api.get("/api/mcp")).body.servers[0]).toMatchObject({ state: "disabled", tools: [] });
    const enabled = await api.post("/api/plugins/mcp:demo/enable", {});
    expect(enabled.status).toBe(200);
    await serverState(scene.bot, "demo", "connected");
    expect((await api.get("/api/mcp")).body.servers[0].tools.length).toBeGreaterThan(0);
  });

  it("restarts a server whose process exits, and its tools come back", async () => {
    const { llm, bot } = await start();
    const api = apiClient(bot.baseUrl);
    const { pid } = (await api.get("/api/mcp")).body.servers[0];
    process.kill(pid, "SIGKILL");
    await serverState(bot, "demo", "down");
    const down = (await api.get("/api/mcp")).body.servers[0];
    expect(down.state).not.toBe("connected");
    expect(down.lastError).toBeTruthy();
    await serverState(bot, "demo", "connected", 2);
    const back = (await api.get("/api/mcp")).body.servers[0];
    expect(back.pid).not.toBe(pid);
    expect(back.restarts).toBe(1);
    llm.enqueue(
      { toolCalls: [{ name: "mcp__demo__echo", arguments: { text: "again" } }] },
      { toolCalls: [{ name: "no_reply", arguments: { reason: "done" } }] },
    );
    ask("回声");
    await bot.turnFinished();
    expect(toolResults(llm.requests[1]!)).toEqual(["echo: again"]);
  });

  it("restarts a server from the console", async () => {
    const { bot } = await start();
    const api = apiClient(bot.baseUrl);
    const { pid } = (await api.get("/api/mcp")).body.servers[0];
    const restarted = await api.post("/api/mcp/demo/restart", {});
    expect(restarted.status).toBe(200);
    await serverState(bot, "demo", "connected", 2);
    expect((await api.get("/api/mcp")).body.servers[0].pid).not.toBe(pid);
    expect((await api.post("/api/mcp/nope/restart", {})).status).toBe(404);
  });

  it("gives the planner an error result when a tool hangs past its timeout, and the turn goes on", async () => {
    const { llm, qq } = await start({ timeoutMs: 1_000 });
    llm.enqueue(
      { toolCalls: [{ name: "mcp__demo__slow", arguments: {} }] },
      { toolCalls: [{ name: "reply", arguments: {} }] },
      { text: "那个服务太慢了" },
    );
    const started = Date.now();
    ask("慢慢查");
    const sent = await qq.waitForSent(undefined, 10_000);
    expect(sent.text).toBe("那个服务太慢了");
    expect(Date.now() - started).toBeLessThan(8_000);
    expect(toolResults(llm.requests[1]!)[0]).toContain("timed out after 1000 ms");
  });

  it("tells the planner what failed when a tool reports an error, and describes pictures and resources", async () => {
    const { llm, bot } = await start();
    llm.enqueue(
      {
        toolCalls: [
          { name: "mcp__demo__fail", arguments: {} },
          { name: "mcp__demo__snapshot", arguments: {} },
        ],
      },
      { toolCalls: [{ name: "no_reply", arguments: { reason: "done" } }] },
    );
    ask("试试");
    await bot.turnFinished();
    const [failed, snapshot] = toolResults(llm.requests[1]!);
    expect(failed).toContain("the backend is down");
    expect(snapshot).toBe("a snapshot\n[image: image/png, 70 bytes]\n[resource memo://1]\nremember the milk");
  });

  it("refuses arguments that do not match the tool's declared schema, without calling it", async () => {
    const { llm, bot } = await start();
    llm.enqueue(
      { toolCalls: [{ name: "mcp__demo__weather", arguments: { town: "上海" } }] },
      { toolCalls: [{ name: "no_reply", arguments: { reason: "done" } }] },
    );
    ask("天气");
    await bot.turnFinished();
    expect(toolResults(llm.requests[1]!)[0]).toContain("must have required property 'city'");
  });

  it("offers the tools a server adds (tools/list_changed)", async () => {
    const { llm, bot } = await start();
    llm.enqueue(
      { toolCalls: [{ name: "mcp__demo__add_tool", arguments: { name: "greet" } }] },
      { toolCalls: [{ name: "mcp__demo__greet", arguments: {} }] },
      { toolCalls: [{ name: "no_reply", arguments: { reason: "done" } }] },
    );
    ask("加个工具");
    await bot.turnFinished();
    expect(llm.requests[0]!.toolNames).not.toContain("mcp__demo__greet");
    expect(llm.requests[1]!.toolNames).toContain("mcp__demo__greet");
    expect(toolResults(llm.requests[2]!).at(-1)).toBe("hello from greet");
  });

  it("lets a PreToolUse hook deny an MCP tool", async () => {
    sandbox = new PluginSandbox();
    sandbox.add("guard", {
      "index.ts": classPlugin(
        `
  @Hook("no_echo", { event: "PreToolUse", matcher: "mcp__demo__*" })
  check(input: { tool_name: string }) {
    return { decision: input.tool_name === "mcp__demo__echo" ? "deny" : "allow", message: "不许回声" };
  }`,
        "Plugin, Hook",
      ),
    });
    const { llm, bot } = await start({}, { plugins: { dirs: [sandbox.root] } });
    await bot.app.pluginsActivated;
    llm.enqueue(
      {
        toolCalls: [
          { name: "mcp__demo__echo", arguments: { text: "hi" } },
          { name: "mcp__demo__weather", arguments: { city: "北京" } },
        ],
      },
      { toolCalls: [{ name: "no_reply", arguments: { reason: "done" } }] },
    );
    ask("回声");
    await bot.turnFinished();
    const [denied, allowed] = toolResults(llm.requests[1]!);
    expect(denied).toContain("不许回声");
    expect(allowed).toBe("北京: sunny, 25°C");
  });
});
