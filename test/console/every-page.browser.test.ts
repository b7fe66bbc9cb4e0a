/**
 * Every console page in a real browser, on a phone (390×844) and a laptop (1280×800): no page
 * scrolls sideways, each page's main controls are on screen, the sidebar folds into a menu on
 * the phone; and every page read in English shows no Chinese outside what people wrote (and no
 * text key or raw status in its place), in Chinese no English-only button or heading.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserPages } from "../support/browser-pages.ts";
import { ALICE, BOB, GROUP, plain } from "../support/messages.ts";
import { type Scene, startScene } from "../support/scene.ts";

const TOKEN = "every-page-token";

/**
 * Each page and the controls that must be on screen on it once scrolled to (the playground's:
 * on its first screen, without scrolling).
 */
const PAGES: Array<{ path: string; controls: string[]; firstScreen?: boolean }> = [
  { path: "/playground", controls: ["textarea[name=message]", "button.send"], firstScreen: true },
  { path: "/monitor", controls: [".turn-list"] },
  { path: "/chats", controls: [".list-pane input[type=search]"] },
  { path: "/memory", controls: ["h1"] },
  { path: "/groups", controls: [".groups-table"] },
  { path: "/knowledge", controls: [".query-box input[name=query]", ".query-box select[name=session]"] },
  { path: "/reminders", controls: [".reminders-table"] },
  { path: "/models", controls: ["h1"] },
  { path: "/plugins", controls: ["h1"] },
  { path: "/mcp", controls: ["h1"] },
  { path: "/instances", controls: ["h1"] },
  { path: "/config", controls: ["select[name=section]", ".config-form button.primary"] },
  { path: "/setup", controls: ["input[name=model]", "button[type=submit]"] },
  { path: "/connect", controls: ["h1"] },
];

const PHONE = { width: 390, height: 844 };
const LAPTOP = { width: 1280, height: 800 };

/** Where the page scrolls sideways, and which of the controls are not (wholly) on screen. */
async function layoutProblems(page: Page, controls: string[], firstScreen = false): Promise<string[]> {
  const problems: string[] = [];
  const { scrollWidth, innerWidth } = await page.evaluate<{ scrollWidth: number; innerWidth: number }>(
    "({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth })",
  );
  if (scrollWidth > innerWidth) {
    const wide = await page.locator("main *").evaluateAll(
      (elements, width) =>
        elements
          .filter((element) => element.getBoundingClientRect().right > width + 0.5)
          .slice(0, 3)
          .map((element) => `${element.tagName.toLowerCase()}.${element.className}`),
      innerWidth,
    );
    problems.push(`scrolls sideways: ${scrollWidth} > ${innerWidth} (${wide.join(", ")})`);
  }
  const viewport = page.viewportSize()!;
  for (const selector of controls) {
    const control = page.locator(selector).first();
    if (!firstScreen) await control.scrollIntoViewIfNeeded({ timeout: 2_000 }).catch(() => {});
    const box = await control.boundingBox();
    if (!box) problems.push(`${selector}: not shown`);
    else if (
      box.x < 0 ||
      box.y < 0 ||
      box.x + box.width > viewport.width + 0.5 ||
      box.y + box.height > viewport.height + 0.5
    )
      problems.push(`${selector}: off screen at ${JSON.stringify(box)}`);
  }
  return problems;
}

/**
 * The page's own text, one string per text node: what people wrote (marked data-user-content),
 * code, config keys and ids (mono), the brand's mark and the switch to the other language
 * (marked data-other-language) are left out.
 */
function ownText(page: Page): Promise<string[]> {
  return page.evaluate<string[]>(`(() => {
    const skipped = "[data-user-content], code, pre, .mono, .brand-mark, textarea, [data-other-language]";
    const texts = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent.trim();
      if (text && !node.parentElement.closest(skipped)) texts.push(text);
    }
    return texts;
  })()`);
}

const CHINESE = /[\u3400-\u9fff]/;

describe("every console page", () => {
  const pages = browserPages();
  let scene: Scene;

  beforeAll(async () => {
    scene = await startScene({
      configFile: true,
      config: { server: { token: TOKEN }, bot: { name: "Tsumugi" } },
    });
    const { qq, llm, bot } = scene;
    qq.setGroups([{ groupId: GROUP, name: "Hiking club", memberCount: 12 }]);
    llm.enqueue(
      { toolCalls: [{ name: "reply", arguments: {} }] },
      { text: "Sunday looks sunny!\nBring water." },
    );
    qq.pushGroupMessage({
      groupId: GROUP,
      userId: ALICE,
      nickname: "Alice",
      message: plain("Tsumugi, where shall we hike on Sunday?\nSomewhere with a view."),
    });
    await bot.waitForEvent("turn.finished");
    qq.pushGroupMessage({ groupId: GROUP, userId: BOB, nickname: "Bob", message: plain("/remind 2h water") });
    await bot.waitForEvent("reminder.set");
  });
  afterAll(async () => {
    await scene?.close();
  });

  async function open(path: string, viewport: { width: number; height: number }, locale = "zh-CN") {
    const page = await pages.blank({ token: TOKEN, locale });
    await page.setViewportSize(viewport);
    await page.goto(`${scene.bot.baseUrl}${path}`);
    await page.locator("main h1").first().waitFor();
    // The page's lists and charts arrive after its heading: give them a moment before measuring.
    await page.waitForTimeout(300);
    return page;
  }

  for (const viewport of [PHONE, LAPTOP]) {
    it(`fits every page at ${viewport.width}×${viewport.height}`, async () => {
      const found: string[] = [];
      for (const { path, controls, firstScreen } of PAGES) {
        const page = await open(path, viewport);
        for (const problem of await layoutProblems(page, controls, firstScreen))
          found.push(`${path}: ${problem}`);
        await page.context().close();
      }
      expect(found).toEqual([]);
    }, 120_000);
  }

  it("folds the sidebar into a menu on a phone", async () => {
    const page = await open("/playground", PHONE);
    const timeline = page.locator("nav").getByRole("link", { name: "时间线" });
    expect(await timeline.isVisible()).toBe(false);
    await page.getByRole("button", { name: "菜单" }).click();
    await timeline.click();
    await expect.poll(() => new URL(page.url()).pathname).toBe("/monitor");
    // The menu closes once a page is chosen, and the page is what is seen.
    await expect.poll(() => timeline.isVisible()).toBe(false);
    expect(await layoutProblems(page, [".turn-list"])).toEqual([]);
  });

  it("keeps the sidebar open on a laptop", async () => {
    const page = await open("/playground", LAPTOP);
    expect(await page.locator("nav").getByRole("link", { name: "时间线" }).isVisible()).toBe(true);
    expect(await page.getByRole("button", { name: "菜单" }).isVisible()).toBe(false);
  });

  it("shows every page in English without Chinese or text keys of its own", async () => {
    const found: string[] = [];
    for (const { path } of PAGES) {
      const page = await open(path, LAPTOP, "en-US");
      if (path === "/monitor") await page.locator(".turn-list li").first().waitFor();
      const texts = await ownText(page);
      if (texts.length < 10) found.push(`${path}: hardly any text (${texts.length})`);
      // Plural forms by Intl.PluralRules: "1 round", "2 rounds" (each turn on the timeline says its rounds).
      const counted = texts.flatMap((text) => [
        ...text.matchAll(/\b(\d+) (rounds?|messages?|passages?|days?)\b/g),
      ]);
      if (path === "/monitor" && counted.length === 0) found.push("/monitor: no turn says its rounds");
      for (const [phrase, n, noun] of counted) {
        if ((n === "1") !== !noun!.endsWith("s")) found.push(`${path}: plural "${phrase}"`);
      }
      for (const text of texts) {
        if (CHINESE.test(text)) found.push(`${path}: Chinese "${text}"`);
        // A text key shown in place of its text: a camelCase word such as navPlayground (a config
        // key named in a sentence, chat.mode or cluster.redisUrl, has its dot; a placeholder its <>).
        for (const key of text.match(/(?<![.\w<])[a-z]+[A-Z][A-Za-z]*\b(?![.>])/g) ?? [])
          found.push(`${path}: key "${key}"`);
      }
      await page.context().close();
    }
    expect(found).toEqual([]);
  }, 120_000);

  it("shows every page's buttons and headings in Chinese when the browser reads Chinese", async () => {
    const found: string[] = [];
    for (const { path } of PAGES) {
      const page = await open(path, LAPTOP);
      const labels = await page
        .locator("main button, main h1, main h2, main th, main label, nav a")
        .evaluateAll((elements) =>
          elements
            // A form's field names are the keys themselves (bot.name, max_cities).
            .filter((element) => !(element.tagName === "LABEL" && element.closest(".schema-form")))
            .filter((element) => !element.closest("[data-user-content], .mono, code, [data-other-language]"))
            .map((element) => {
              // What is left once names people gave, ids and kinds (badges such as tool) are out.
              const copy = element.cloneNode(true) as typeof element;
              for (const part of copy.querySelectorAll("[data-user-content], .mono, code, .badge"))
                part.remove();
              return (copy.textContent ?? "").trim();
            }),
        );
      if (labels.length === 0) found.push(`${path}: no labels`);
      // A label of English words alone (names such as MCP or QQ and figures aside) is untranslated.
      for (const label of labels) {
        if (!/[\u3400-\u9fff]/.test(label) && /[a-z]{3,}/.test(label)) found.push(`${path}: "${label}"`);
      }
      await page.context().close();
    }
    expect(found).toEqual([]);
  }, 120_000);
  // A browser's own file input reads "Choose File / No file chosen" in the browser's language,
  // whatever the page's: every page hides it behind a label of its own that opens the chooser.
  it("puts every file input behind a button in the page's language", async () => {
    const found: string[] = [];
    const seen: string[] = [];
    for (const locale of ["zh-CN", "en-US"]) {
      for (const { path } of PAGES) {
        const page = await open(path, LAPTOP, locale);
        const inputs = page.locator("main input[type=file]");
        for (let index = 0; index < (await inputs.count()); index++) {
          const input = inputs.nth(index);
          const label = input.locator("xpath=ancestor::label");
          seen.push(`${locale} ${path}`);
          if (await input.isVisible()) found.push(`${locale} ${path}: the browser's file input shows`);
          if ((await label.count()) === 0 || !(await label.isVisible())) {
            found.push(`${locale} ${path}: no button of the page's own`);
            continue;
          }
          const text = ((await label.textContent()) ?? "").trim();
          if (text === "" || CHINESE.test(text) !== (locale === "zh-CN"))
            found.push(`${locale} ${path}: button "${text}"`);
          const chooser = page.waitForEvent("filechooser", { timeout: 3_000 });
          await label.click();
          await chooser.catch(() => found.push(`${locale} ${path}: "${text}" opens no file chooser`));
        }
        await page.context().close();
      }
    }
    expect(found).toEqual([]);
    // The pages that take a file: the playground's picture, the knowledge base's document.
    expect(seen).toEqual(["zh-CN /playground", "zh-CN /knowledge", "en-US /playground", "en-US /knowledge"]);
  }, 120_000);
});
