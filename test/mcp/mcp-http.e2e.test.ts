import { afterEach, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { apiClient } from "../support/api-client.ts";
import { type McpHttpServer, startMcpHttpServer } from "../support/mcp-http-server.ts";
import { ALICE, GROUP, mention } from "../support/messages.ts";
import { type Scene, startScene } from "../support/scene.ts";
import { STDIO_SERVER_COMMAND, serverState, toolResults } from "./mcp-fixtures.ts";

/** A streamable HTTP MCP server, its secrets, its outages; a server added from the console. */
describe("MCP servers over HTTP and from the console", () => {
  let scene: Scene | undefined;
  let remote: McpHttpServer | undefined;

  afterEach(async () => {
    await scene?.close();
    scene = undefined;
    await remote?.close();
    remote = undefined;
  });

  const ask = (text: string) =>
    scene!.qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, nickname: "Alice", message: mention(text) });

  it("sends the configured headers, hides them in the console, and drops the tools while the server is down", async () => {
    remote = await startMcpHttpServer();
    scene = await startScene({
      configFile: true,
      config: {
        mcp: {
          pingIntervalMs: 200,
          servers: [{ id: "remote", url: remote.url, headers: { Authorization: "Bearer s3cret-token" } }],
        },
      },
    });
    const { bot, llm } = scene;
    await serverState(bot, "remote", "connected");
    expect(remote.requestHeaders.every((headers) => headers.authorization === "Bearer s3cret-token")).toBe(
      true,
    );
    const config = await apiClient(bot.baseUrl).get("/api/config");
    expect(config.body.yaml).not.toContain("s3cret-token");
    expect(config.body.yaml).toContain(`Authorization: "********"`);

    llm.enqueue(
      { toolCalls: [{ name: "mcp__remote__echo", arguments: { text: "over http" } }] },
      { toolCalls: [{ name: "no_reply", arguments: { reason: "done" } }] },
    );
    ask("回声");
    await bot.turnFinished();
    expect(toolResults(llm.requests[1]!)).toEqual(["echo: over http"]);

    // The server goes away: a ping fails, its tools leave the planner's list.
    const port = remote.port;
    await remote.close();
    remote = undefined;
    await serverState(bot, "remote", "down");
    llm.enqueue({ toolCalls: [{ name: "no_reply", arguments: { reason: "quiet" } }] });
    ask("还在吗");
    await bot.turnFinished(2);
    expect(llm.requests[2]!.toolNames.some((name) => name.startsWith("mcp__remote__"))).toBe(false);

    // It comes back on the same address: reconnected with backoff, the tools return.
    remote = await startMcpHttpServer({ port });
    await serverState(bot, "remote", "connected", 2, 20_000);
    llm.enqueue({ toolCalls: [{ name: "no_reply", arguments: { reason: "quiet" } }] });
    ask("现在呢");
    await bot.turnFinished(3);
    expect(llm.requests[3]!.toolNames).toContain("mcp__remote__echo");
  });

  it("talks to an older server over HTTP+SSE", async () => {
    remote = await startMcpHttpServer();
    scene = await startScene({
      config: { mcp: { servers: [{ id: "old", url: remote.sseUrl, transport: "sse" }] } },
    });
    const { bot, llm } = scene;
    await serverState(bot, "old", "connected");
    llm.enqueue(
      { toolCalls: [{ name: "mcp__old__echo", arguments: { text: "over sse" } }] },
      { toolCalls: [{ name: "no_reply", arguments: { reason: "done" } }] },
    );
    ask("回声");
    await bot.turnFinished();
    expect(toolResults(llm.requests[1]!)).toEqual(["echo: over sse"]);
  });

  it("uses a server added through the console's config within seconds", async () => {
    scene = await startScene({ configFile: true });
    const { bot, llm, qq } = scene;
    const api = apiClient(bot.baseUrl);
    const current = await api.get("/api/config");
    const edited = parse(current.body.yaml) as Record<string, unknown>;
    edited.mcp = { servers: [{ id: "added", command: STDIO_SERVER_COMMAND }] };
    const saved = await api.put("/api/config", { yaml: stringify(edited) });
    expect(saved.status).toBe(200);
    await serverState(bot, "added", "connected");
    llm.enqueue(
      { toolCalls: [{ name: "mcp__added__weather", arguments: { city: "杭州" } }] },
      { toolCalls: [{ name: "reply", arguments: {} }] },
      (request) => ({ text: /杭州: [^"\\\n]+/.exec(request.promptText)?.[0] ?? "没查到" }),
    );
    ask("杭州天气");
    expect(toolResults((await qq.waitForSent(undefined, 10_000)) && llm.requests[1]!)).toEqual([
      "杭州: sunny, 25°C",
    ]);
  });
});
