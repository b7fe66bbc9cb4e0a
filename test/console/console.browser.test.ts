import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PluginSandbox } from "../plugins/plugin-fixtures.ts";
import { type BotHarness, startBot } from "../support/bot-harness.ts";
import { browserPages } from "../support/browser-pages.ts";
import { ScriptedLlmServer } from "../support/scripted-llm-server.ts";
import { singerPlugin, toneWav, WEATHER_MANIFEST, WEATHER_PLUGIN } from "./weather-plugin.ts";

const TOKEN = "browser-token";

/** A stdio plugin that declares two web_ui widgets once activated. */
const BOARD_PLUGIN = `
const readline = require("node:readline");
const write = (message) => process.stdout.write(JSON.stringify(message) + "\\n");
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const { method } = JSON.parse(line);
  if (method === "activate") {
    write({ result: { tools: [] } });
    write({ method: "web_ui", params: { widgets: [
      { type: "text", text: "留言板已开启" },
      { type: "link", label: "打开留言板", url: "http://127.0.0.1:9/board" },
    ] } });
    return;
  }
  write({ result: "ok" });
});
`;

describe("the console in a real browser", () => {
  const pages = browserPages();
  let llm: ScriptedLlmServer;
  let bot: BotHarness;
  let page: Page;
  const sandbox = new PluginSandbox();

  beforeAll(async () => {
    sandbox.add("weather", { "index.ts": WEATHER_PLUGIN }, WEATHER_MANIFEST);
    sandbox.add("board", { "plugin.cjs": BOARD_PLUGIN }, { runtime: "stdio", entry: "node plugin.cjs" });
    const singer = sandbox.add("singer", {});
    writeFileSync(join(singer.dir, "tone.wav"), toneWav());
    singer.write("index.ts", singerPlugin(join(singer.dir, "tone.wav")));
    llm = await ScriptedLlmServer.start();
    bot = await startBot({
      llm,
      configFile: true,
      config: { server: { token: TOKEN }, plugins: { dirs: [sandbox.root] } },
    });
  });
  afterAll(async () => {
    await bot?.dispose();
    await llm?.close();
    sandbox.remove();
  });
  async function openLoggedIn(path: string): Promise<Page> {
    page = await pages.open(`${bot.baseUrl}${path}`, { token: TOKEN });
    return page;
  }

  /** A private playground message, posted as another user would from their own page. */
  async function sayPrivately(userId: string, senderName: string, text: string): Promise<void> {
    await fetch(`${bot.baseUrl}/api/playground/messages`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({
        chatType: "private",
        userId,
        senderName,
        segments: [{ type: "text", data: { text } }],
      }),
    });
  }

  it("refuses a wrong token and logs in with the right one", async () => {
    page = await pages.open(bot.baseUrl);
    await expect.poll(() => page.getByRole("heading", { name: "登录控制台" }).isVisible()).toBe(true);

    await page.locator("input[name=token]").fill("wrong-token");
    await page.getByRole("button", { name: "登录" }).click();
    await expect.poll(() => page.getByRole("alert").textContent()).toContain("令牌不对");
    expect(await page.locator("nav.sidebar").count()).toBe(0);

    await page.locator("input[name=token]").fill(TOKEN);
    await page.getByRole("button", { name: "登录" }).click();
    await page.locator("nav.sidebar").waitFor();
    // The first page follows once the status has loaded (a model is configured: the playground).
    await expect.poll(() => new URL(page.url()).pathname).toBe("/playground");
    expect(await page.evaluate('localStorage.getItem("tsumugi.token")')).toBe(TOKEN);
  });

  it("chats in the playground and shows why the bot answered on the timeline", async () => {
    await openLoggedIn("/playground");
    llm.enqueue({ toolCalls: [{ name: "reply", arguments: {} }] }, { text: "浏览器里也能聊天呀" });
    const box = page.locator("textarea[name=message]");
    await box.fill("你好，从浏览器来的消息");
    await box.press("Enter");

    const reply = page.locator(".bubble-row.bot", { hasText: "浏览器里也能聊天呀" });
    await reply.waitFor();
    await page.locator(".bubble-row.mine", { hasText: "你好，从浏览器来的消息" }).waitFor();
    expect(llm.lastRequestWithTool("reply")?.promptText).toContain("小明(30001): 你好，从浏览器来的消息");

    await reply.getByRole("link", { name: "为什么这样回复？" }).click();
    await page.locator(".timeline").waitFor();
    const round = page.locator("[data-event-type='planner.round']");
    await round.waitFor();
    expect(await round.textContent()).toContain("main/scripted-model");
    expect(await round.textContent()).toContain("reply(");
    expect(await page.locator("[data-event-type='turn.started']").textContent()).toContain(
      "你好，从浏览器来的消息",
    );
    expect(await page.locator("[data-event-type='message.sent']").textContent()).toContain(
      "浏览器里也能聊天呀",
    );
    expect(await page.locator(".turn-list li.selected").textContent()).toContain("已回复");
  });

  it("shows a silent turn and its reason live, in the chat and on the timeline", async () => {
    await openLoggedIn("/monitor");
    await page.locator(".turn-list").waitFor();
    llm.enqueue({ toolCalls: [{ name: "no_reply", arguments: { reason: "不需要回答" } }] });
    await sayPrivately("40001", "小红", "嗯嗯");
    const live = page.locator(".turn-list li", { hasText: "console:10000:private:40001" });
    await expect.poll(() => live.textContent()).toContain("no_reply: 不需要回答");
    await live.getByRole("link").click();
    await expect.poll(() => page.locator(".why").textContent()).toContain("不需要回答");
  });

  it("lists what started a turn and what it sent, and shows a turn opened mid-way whole and in order", async () => {
    await openLoggedIn("/playground");
    // The stream answers once the server follows the timeline for this page.
    const following = page.waitForResponse((response) => response.url().endsWith("/api/monitor/stream"));
    await page.locator("nav").getByRole("link", { name: "时间线" }).click();
    await following;
    let releaseReplyer = () => {};
    const replyerHeld = new Promise<void>((resolve) => {
      releaseReplyer = resolve;
    });
    llm.enqueue({ toolCalls: [{ name: "reply", arguments: {} }] }, async () => {
      await replyerHeld;
      return { text: "楼下的面条不错" };
    });
    // The turn's events answer with what was stored when asked, but reach the page only after
    // the rest of the turn has streamed in: the page must keep both, each once, in order.
    let detailFetched = () => {};
    const fetched = new Promise<void>((resolve) => {
      detailFetched = resolve;
    });
    let deliverDetail = () => {};
    const delivered = new Promise<void>((resolve) => {
      deliverDetail = resolve;
    });
    await page.route("**/api/monitor/turns/*", async (route) => {
      const response = await route.fetch();
      detailFetched();
      await delivered;
      await route.fulfill({ response });
    });
    await sayPrivately("40002", "小刚", "午饭吃什么好");
    const entry = page.locator(".turn-list li", { hasText: "小刚: 午饭吃什么好" });
    await entry.getByRole("link").click();
    await fetched;
    releaseReplyer();
    await expect.poll(() => entry.textContent()).toContain("已回复");
    expect(await entry.locator(".turn-reply").textContent()).toContain("楼下的面条不错");
    deliverDetail();

    await page.locator(".timeline [data-event-type='turn.finished']").waitFor();
    const shown = await page
      .locator(".timeline > li")
      .evaluateAll((items) => items.map((item) => item.getAttribute("data-event-type")));
    const replyId = new URL(page.url()).pathname.split("/").at(-1);
    const stored = await fetch(`${bot.baseUrl}/api/monitor/turns/${replyId}`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    }).then((response) => response.json() as Promise<{ events: Array<{ type: string }> }>);
    expect(shown).toEqual(stored.events.map((event) => event.type));
    const replyer = page.locator("[data-event-type='replyer.generated']");
    expect(await replyer.textContent()).toContain("写出回复");
    expect(await replyer.textContent()).toContain("main/scripted-model");
  });

  it("says plainly when no model is configured, and sets one up from the first-run page", async () => {
    const setupLlm = await ScriptedLlmServer.start();
    const fresh = await startBot({ configFile: true, config: { plugins: { dirs: [] } } });
    try {
      page = await pages.open(fresh.baseUrl, { locale: "en-US" });
      await page.getByRole("heading", { name: "Set up a model" }).waitFor();
      expect(new URL(page.url()).pathname).toBe("/setup");

      await page.locator("nav").getByRole("link", { name: "Playground" }).click();
      await expect.poll(() => page.locator(".banner.warn").textContent()).toContain("No model is configured");
      await page.locator(".banner.warn").getByRole("link").click();

      await page.locator("input[name=baseUrl]").fill(setupLlm.baseUrl);
      await page.locator("input[name=apiKey]").fill("sk-browser");
      await page.locator("input[name=model]").fill("scripted-model");
      setupLlm.enqueue({ text: "OK" });
      await page.getByRole("button", { name: "Test" }).click();
      await expect.poll(() => page.locator(".test-result").textContent()).toContain("Works");
      await page.getByRole("button", { name: "Save", exact: true }).click();
      await expect.poll(() => page.locator(".banner.ok").textContent()).toContain(fresh.configFile!);

      await page.locator("nav").getByRole("link", { name: "Playground" }).click();
      await expect.poll(async () => page.locator(".banner.warn").count()).toBe(0);
      setupLlm.enqueue({ toolCalls: [{ name: "reply", arguments: {} }] }, { text: "configured and talking" });
      await page.locator("textarea[name=message]").fill("hello");
      await page.locator("textarea[name=message]").press("Enter");
      await page.locator(".bubble-row.bot", { hasText: "configured and talking" }).waitFor();
    } finally {
      await fresh.dispose();
      await setupLlm.close();
    }
  });

  it("switches a plugin's tool off so the next planner request no longer offers it", async () => {
    await openLoggedIn("/plugins");
    const tool = page.locator("[data-component='weather.get_weather'] input[type=checkbox]");
    await tool.waitFor();
    expect(await tool.isChecked()).toBe(true);
    // A click asks the server; the box shows the state the plugin host answers with.
    await tool.click();
    const settled = async () => ((await tool.isDisabled()) ? "busy" : await tool.isChecked());
    await expect.poll(settled).toBe(false);

    await page.locator("nav").getByRole("link", { name: "试聊" }).click();
    llm.enqueue({ toolCalls: [{ name: "no_reply", arguments: { reason: "测试" } }] });
    const before = llm.requests.length;
    await page.locator("textarea[name=message]").fill("今天天气如何");
    await page.locator("textarea[name=message]").press("Enter");
    await expect.poll(() => llm.requests.length).toBeGreaterThan(before);
    expect(llm.requests.at(-1)!.toolNames).not.toContain("get_weather");

    await page.locator("nav").getByRole("link", { name: "插件" }).click();
    await tool.click();
    await expect.poll(settled).toBe(true);
  });

  it("edits a plugin's config through the form generated from its schema", async () => {
    await openLoggedIn("/plugins");
    const card = page.locator("[data-plugin='weather']");
    await card.locator("summary", { hasText: "插件配置" }).click();
    const max = card.locator("input[name=max_cities]");
    await max.fill("0");
    await card.getByRole("button", { name: "保存配置" }).click();
    await expect
      .poll(() => card.locator("[data-field=max_cities] .error").textContent())
      .toContain("不能小于 1");

    await max.fill("5");
    await card.locator("select[name=units]").selectOption({ label: "f" });
    await card.getByRole("button", { name: "保存配置" }).click();
    await card.locator("output.ok").waitFor();
    const response = await fetch(`${bot.baseUrl}/api/plugins`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    const plugins = (await response.json()) as { plugins: Array<{ id: string; config: unknown }> };
    expect(plugins.plugins.find((plugin) => plugin.id === "weather")?.config).toEqual({
      units: "f",
      max_cities: 5,
    });
  });

  it("shows a stdio plugin's process state, restarts and the widgets it declared", async () => {
    await openLoggedIn("/plugins");
    const card = page.locator("[data-plugin='board']");
    await card.locator(".process[data-process-state='running']").waitFor();
    expect(await card.locator(".process").textContent()).toContain("重启次数 0");
    expect(await card.locator(".process").textContent()).toContain("node plugin.cjs");
    await card.locator(".widget", { hasText: "留言板已开启" }).waitFor();
    const link = card.getByRole("link", { name: "打开留言板" });
    expect(await link.getAttribute("href")).toBe("http://127.0.0.1:9/board");
    // How each plugin runs (docs/security.md): the stdio one sandboxed, the node one inside the bot.
    expect(await card.locator("[data-launch='isolated']").textContent()).toBe("沙箱隔离");
    const inProcess = page.locator("[data-plugin='weather'] [data-launch='in-process']");
    expect(await inProcess.textContent()).toBe("在机器人进程内");
  });

  it("shows a stdio plugin that is still activating as such", async () => {
    const sleepySandbox = new PluginSandbox();
    // Never answers activate: it stays activating for its whole 30 s timeout.
    sleepySandbox.add(
      "sleepy",
      { "plugin.cjs": "process.stdin.resume();" },
      { runtime: "stdio", entry: "node plugin.cjs" },
    );
    const sleepy = await startBot({
      config: { server: { token: TOKEN }, plugins: { dirs: [sleepySandbox.root] } },
      waitForPlugins: false,
    });
    try {
      page = await pages.open(`${sleepy.baseUrl}/plugins`, { token: TOKEN });
      const process = page.locator("[data-plugin='sleepy'] .process[data-process-state='starting']");
      await process.waitFor();
      expect(await process.textContent()).toContain("进程激活中");
    } finally {
      await sleepy.dispose();
      sleepySandbox.remove();
    }
  });

  it("plays a voice reply in the page", async () => {
    await openLoggedIn("/playground");
    llm.enqueue({ toolCalls: [{ name: "sing", arguments: {} }] });
    await page.locator("textarea[name=message]").fill("唱首歌吧");
    await page.locator("textarea[name=message]").press("Enter");
    const voice = page.locator(".bubble-row.bot audio.voice").last();
    await voice.waitFor();
    expect(await voice.getAttribute("src")).toMatch(/^data:audio\/wav;base64,UklGR/);
    // The browser decoded it: a 0.3 s tone has a duration.
    await page.waitForFunction("document.querySelector('.bubble-row.bot audio.voice')?.duration > 0.2");
  });
});
