/**
 * The Config page's forms, in a real browser: generated from the config schema like a plugin's
 * settings, each key described in the page's language, saving only the key changed (the file's
 * comments stay), and the raw YAML one click away.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BotHarness, startBot } from "../support/bot-harness.ts";
import { browserPages } from "../support/browser-pages.ts";
import { waitFor } from "../support/wait.ts";

const TOKEN = "config-form-token";

describe("the Config page's forms", () => {
  const pages = browserPages();
  let bot: BotHarness;

  beforeAll(async () => {
    bot = await startBot({
      configFile: true,
      config: { server: { token: TOKEN }, bot: { name: "Tsumugi" } },
    });
    const file = bot.configFile!;
    writeFileSync(file, `# Our group's bot: keep this note\n${readFileSync(file, "utf8")}`);
  });
  afterAll(async () => {
    await bot?.dispose();
  });

  it("saves one key from the form and keeps the rest of the file", async () => {
    const before = readFileSync(bot.configFile!, "utf8");
    const page = await pages.open(`${bot.baseUrl}/config`, { token: TOKEN, locale: "en-US" });
    await page.locator("select[name=section]").selectOption("bot");
    const form = page.locator(".config-form");
    const name = form.locator("input[name=name]");
    expect(await name.inputValue()).toBe("Tsumugi");
    // Described in English, from the schema.
    expect(await form.locator("[data-field=name]").textContent()).toContain("mentioning it triggers a reply");

    await name.fill("Mugi");
    await form.getByRole("button", { name: "Save" }).click();
    await expect.poll(() => page.locator("output.banner.ok").textContent()).toContain("bot.name");

    const after = readFileSync(bot.configFile!, "utf8");
    expect(after).toContain("# Our group's bot: keep this note");
    expect(after).toContain("name: Mugi");
    // Only that key changed: the file is the same text with one line replaced.
    expect(after.replace("name: Mugi", "name: Tsumugi")).toBe(before);
    // Hot-reloaded: the running bot goes by its new name.
    await waitFor(async () => {
      const answer = await fetch(`${bot.baseUrl}/api/playground`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      return ((await answer.json()) as { botName: string }).botName === "Mugi";
    });
  });

  it("refuses a port out of range before anything is saved", async () => {
    const page = await pages.open(`${bot.baseUrl}/config`, { token: TOKEN, locale: "en-US" });
    await page.locator("select[name=section]").selectOption("server");
    const port = page.locator(".config-form input[name=port]");
    await port.fill("70000");
    await page.locator(".config-form").getByRole("button", { name: "Save" }).click();
    await expect
      .poll(() => page.locator("[data-field=port] .error").textContent())
      .toContain("at most 65535");
    expect(readFileSync(bot.configFile!, "utf8")).not.toContain("70000");
  });

  it("describes each key in Chinese on the Chinese page, and opens the raw text", async () => {
    const page = await pages.open(`${bot.baseUrl}/config`, { token: TOKEN });
    await page.locator("select[name=section]").selectOption("bot");
    expect(await page.locator(".config-form [data-field=name]").textContent()).toContain(
      "机器人的名字；消息里提到它就会触发回复。",
    );
    await page.getByRole("button", { name: "编辑原始 YAML 文本" }).click();
    expect(await page.locator("textarea[name=yaml]").inputValue()).toContain(
      "# Our group's bot: keep this note",
    );
  });
});
