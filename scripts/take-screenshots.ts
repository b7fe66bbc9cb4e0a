// Screenshots of every console page for the README (`npm run screenshots`): runs the real bot
// with a scripted model and a stand-in QQ account, holds a few conversations, and saves PNGs
// under docs/images/.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { createLogger } from "../src/log/logger.ts";
import { openStore } from "../src/store/open-store.ts";
import type { StoredMessage } from "../src/store/types.ts";
import { startBot } from "../test/support/bot-harness.ts";
import { launchBrowser } from "../test/support/browser.ts";
import { seedMemories } from "../test/support/memory-seed.ts";
import { OneBotStandIn } from "../test/support/onebot-standin.ts";
import { ScriptedLlmServer } from "../test/support/scripted-llm-server.ts";

const OUT = "docs/images";
const TOKEN = "demo-token";
const DAY = 86_400_000;

const llm = await ScriptedLlmServer.start();
const bot = await startBot({
  llm,
  configFile: true,
  config: {
    server: { token: TOKEN },
    adapters: [{ id: "qq", accessToken: "napcat-token" }],
    llm: { prices: { "main/scripted-model": { input: 2, output: 8 } } },
  },
});
await seedUsage(join(bot.dataDir, "tsumugi.db"));
const qq = new OneBotStandIn({ selfId: "123456789", nickname: "紬", accessToken: "napcat-token" });
qq.setGroups([{ groupId: "20001", name: "周末爬山群", memberCount: 36 }]);
await qq.connectReverse(bot.wsUrl);

const browser = await launchBrowser();
const context = await browser.newContext({ locale: "zh-CN", viewport: { width: 1280, height: 800 } });
const page = await context.newPage();
mkdirSync(OUT, { recursive: true });

await page.goto(bot.baseUrl);
await page.locator("input[name=token]").fill("wrong");
await page.getByRole("button", { name: "登录" }).click();
await page.getByRole("alert").waitFor();
await shoot(page, "login");
await page.locator("input[name=token]").fill(TOKEN);
await page.getByRole("button", { name: "登录" }).click();
await page.locator("nav.sidebar").waitFor();

llm.enqueue(
  { toolCalls: [{ name: "reply", arguments: { set_quote: true } }] },
  { text: "周末去爬山吧，天气预报说是晴天☀️" },
);
await say(page, "@紬 周末有什么好玩的推荐吗？");
await page.locator(".bubble-row.bot").first().waitFor();
llm.enqueue({ toolCalls: [{ name: "no_reply", arguments: { reason: "大家在互相聊天，不需要插话" } }] });
await say(page, "我也想去！紬 你去不去");
await page.locator(".notice").waitFor();
llm.enqueue({ toolCalls: [{ name: "reply", arguments: {} }] }, { text: "去呀去呀，带上相机拍照" });
await say(page, "@紬 那你要带什么？");
await page.locator(".bubble-row.bot").nth(1).waitFor();
await shoot(page, "playground");

await page.locator(".bubble-row.bot").nth(1).getByRole("link").click();
await page.locator("[data-event-type='turn.finished']").waitFor();
await page
  .locator(".planner-round details")
  .first()
  .evaluate((element) => element.setAttribute("open", ""));
await shoot(page, "monitor");

await nav(page, "聊天记录");
await page.locator(".turn-list li button").first().click();
await page.locator(".history li").first().waitFor();
await shoot(page, "chats");

await seedDemoMemories();
await nav(page, "记忆");
await page.locator(".memory-list li").first().click();
await page.locator(".memory-sources li").first().waitFor();
await shoot(page, "memory");

await nav(page, "模型与用量");
await page.locator(".chart").waitFor();
llm.enqueue({ text: "OK" });
await page.locator(".model-ref").first().getByRole("button").click();
await page.locator(".test-result").first().waitFor();
await shoot(page, "models");

await nav(page, "插件");
await page.locator("[data-plugin='dice'] summary").click();
await shoot(page, "plugins");

await nav(page, "群");
await page.locator(".groups-table .hourly-chart").first().waitFor();
await shoot(page, "groups");

await nav(page, "知识库");
await page.locator(".query-box").waitFor();
await shoot(page, "knowledge");

await fetch(`${bot.baseUrl}/api/playground/messages`, {
  method: "POST",
  headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
  body: JSON.stringify({
    chatType: "group",
    groupId: "20000",
    userId: "30001",
    senderName: "小明",
    segments: [{ type: "text", data: { text: "/提醒 2h 带上相机和水" } }],
  }),
});
await nav(page, "提醒");
await page.locator(".reminders-table").waitFor();
await shoot(page, "reminders");

await nav(page, "MCP 服务器");
await shoot(page, "mcp");

await nav(page, "实例");
await shoot(page, "instances");

await nav(page, "配置");
await page.locator(".config-form select[name=section]").selectOption("bot");
await shoot(page, "config");

// First run has left the menu once QQ is connected: its address still opens it.
await page.goto(`${bot.baseUrl}/setup`);
await page.locator("input[name=model]").waitFor();
await shoot(page, "setup");

await nav(page, "连接 QQ");
await page.locator(".account").waitFor();
await shoot(page, "connect");

// On a phone: the playground, and the sidebar folded into its menu.
await page.setViewportSize({ width: 390, height: 844 });
await page.goto(`${bot.baseUrl}/playground`);
await page.locator(".bubble-row.bot").first().waitFor();
await shoot(page, "phone-playground");
await page.getByRole("button", { name: "菜单" }).click();
await shoot(page, "phone-menu");

await browser.close();
await qq.close();
await bot.dispose();
await llm.close();

async function say(target: Page, text: string): Promise<void> {
  const box = target.locator("textarea[name=message]");
  await target.locator(".composer .chip input[type=checkbox]").setChecked(text.startsWith("@紬 "));
  await box.fill(text.replace(/^@紬 /, ""));
  await box.press("Enter");
  await target
    .locator(".bubble-row.mine", { hasText: text.replace(/^@紬 /, "") })
    .last()
    .waitFor();
}

async function nav(target: Page, label: string): Promise<void> {
  await target.locator("nav").getByRole("link", { name: label }).click();
}

async function shoot(target: Page, name: string): Promise<void> {
  await target.waitForTimeout(300);
  await target.screenshot({ path: join(OUT, `console-${name}.png`) });
  process.stdout.write(`saved ${OUT}/console-${name}.png\n`);
}

/** A few facts about the people of the playground chat, one learned from its first message. */
async function seedDemoMemories(): Promise<void> {
  const answer = await fetch(`${bot.baseUrl}/api/chats/messages?limit=500`, {
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  const { messages } = (await answer.json()) as { messages: StoredMessage[] };
  const first = messages.filter((message) => !message.fromSelf).at(-1);
  if (!first) throw new Error("no playground message to learn from");
  const person = `person:${first.platform}:${first.userId}` as const;
  const group = first.groupId ? (`group:${first.platform}:${first.groupId}` as const) : person;
  await seedMemories(bot.dataDir, [
    {
      subject: group,
      subjectName: "周末爬山群",
      content: "每个月第一个周末一起去爬山",
      at: Date.now() - 3 * DAY,
    },
    { subject: person, subjectName: first.senderName, content: "不喝咖啡，只喝茶", at: Date.now() - DAY },
    {
      subject: person,
      subjectName: first.senderName,
      content: "想找周末好玩的地方，喜欢户外",
      from: [first],
      origin: "tool",
    },
  ]);
}

/** Two weeks of plausible model calls, so the spend chart has something to show. */
async function seedUsage(file: string): Promise<void> {
  const stores = await openStore(`sqlite:${file}`, createLogger({ level: "silent" }));
  const today = Math.floor(Date.now() / DAY) * DAY;
  for (let day = 13; day >= 1; day--) {
    const turns = 20 + ((day * 37) % 45);
    for (let turn = 0; turn < turns; turn++) {
      const time = today - day * DAY + turn * 60_000;
      for (const task of ["planner", "replyer"]) {
        stores.usage.record({
          time,
          task,
          provider: "main",
          model: "scripted-model",
          promptTokens: task === "planner" ? 1_450 : 1_100,
          completionTokens: task === "planner" ? 40 : 60,
          latencyMs: task === "planner" ? 820 : 1_300,
          success: true,
        });
      }
    }
  }
  await stores.close();
}
