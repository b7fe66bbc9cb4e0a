import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BotHarness, startBot } from "../support/bot-harness.ts";
import { browserPages } from "../support/browser-pages.ts";
import { ScriptedLlmServer } from "../support/scripted-llm-server.ts";
import { STDIO_SERVER_COMMAND, serverState } from "./mcp-fixtures.ts";

const TOKEN = "mcp-browser-token";

/** The console's MCP page in a real browser. */
describe("the console's MCP page", () => {
  const pages = browserPages();
  let llm: ScriptedLlmServer;
  let bot: BotHarness;

  beforeAll(async () => {
    llm = await ScriptedLlmServer.start();
    bot = await startBot({
      llm,
      config: {
        server: { token: TOKEN },
        mcp: { servers: [{ id: "demo", command: STDIO_SERVER_COMMAND }] },
      },
    });
    await serverState(bot, "demo", "connected");
  });
  afterAll(async () => {
    await bot?.dispose();
    await llm?.close();
  });

  const open = (path: string) => pages.open(`${bot.baseUrl}${path}`, { token: TOKEN });

  it("shows each server's state and tools, and restarts it", async () => {
    const page = await open("/mcp");
    const card = page.locator("[data-mcp-server='demo']");
    await card.locator("[data-tool='mcp__demo__weather']").waitFor();
    expect(await card.getAttribute("data-state")).toBe("connected");
    expect(await card.textContent()).toContain("tsumugi-test-mcp");
    expect(await card.textContent()).toContain("已连接");

    await card.getByRole("button", { name: "重启" }).click();
    await serverState(bot, "demo", "connected", 2);
    await expect.poll(() => card.getAttribute("data-state"), { timeout: 5_000 }).toBe("connected");
    await expect.poll(() => card.textContent(), { timeout: 5_000 }).toContain("重启次数 1");
  });

  it("switches an MCP tool off on the plugin page", async () => {
    const page = await open("/plugins");
    const tool = page.locator(
      "[data-plugin='mcp:demo'] [data-component='mcp:demo.echo'] input[type=checkbox]",
    );
    await tool.waitFor();
    expect(await tool.isChecked()).toBe(true);
    // The box shows the server's answer: it turns off once the switch is saved, not on the click itself.
    await tool.click();
    await expect.poll(() => tool.isChecked(), { timeout: 5_000 }).toBe(false);
    const echo = async () => {
      const answer = await fetch(`${bot.baseUrl}/api/mcp`, { headers: { authorization: `Bearer ${TOKEN}` } });
      const { servers } = (await answer.json()) as {
        servers: Array<{ tools: Array<{ name: string; enabled: boolean }> }>;
      };
      return servers[0]?.tools.find((entry) => entry.name === "echo")?.enabled;
    };
    await expect.poll(echo, { timeout: 5_000 }).toBe(false);
  });
});
