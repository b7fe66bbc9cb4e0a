/**
 * Console pages in a real browser for a test file: call `browserPages()` in a describe block;
 * one Chromium serves the block, and every page opens in a context of its own, closed after its
 * test.
 *
 *   const pages = browserPages();
 *   const page = await pages.open(`${bot.baseUrl}/groups`, { token: TOKEN });
 */
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll } from "vitest";
import { launchBrowser } from "./browser.ts";

export interface PageOptions {
  /** Signs the page in to the console with this token, as a login would. */
  token?: string;
  /** The browser's language: "zh-CN" unless a test needs another. */
  locale?: string;
}

export interface BrowserPages {
  /** A blank page, for a test that must watch it before it navigates. */
  blank(options?: PageOptions): Promise<Page>;
  /** A page at `url`. */
  open(url: string, options?: PageOptions): Promise<Page>;
}

export function browserPages(): BrowserPages {
  let browser: Browser | undefined;
  const contexts: BrowserContext[] = [];
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((context) => context.close()));
  });
  afterAll(async () => {
    await browser?.close();
  });

  async function blank({ token, locale = "zh-CN" }: PageOptions = {}): Promise<Page> {
    if (browser === undefined)
      throw new Error("browserPages(): pages open inside tests, once Chromium is up");
    const context = await browser.newContext({ locale });
    contexts.push(context);
    if (token !== undefined) {
      await context.addInitScript(`localStorage.setItem("tsumugi.token", ${JSON.stringify(token)})`);
    }
    return context.newPage();
  }

  return {
    blank,
    async open(url, options) {
      const page = await blank(options);
      await page.goto(url);
      return page;
    },
  };
}
