import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { frameAbout } from "../adapters/notice-fixtures.ts";
import { browserPages } from "../support/browser-pages.ts";
import { ALICE, GROUP, groupSession, plain } from "../support/messages.ts";
import { type Scene, startScene } from "../support/scene.ts";

/** How the page draws an element's text: struck through or not (runs in the page). */
function decoration(element: unknown): string {
  const page = globalThis as unknown as {
    getComputedStyle(element: unknown): { textDecorationLine: string };
  };
  return page.getComputedStyle(element).textDecorationLine;
}

/** The Chats page shows a recalled message struck through with a badge (NapCat's group_recall frame). */
describe("a recalled message in the console's chat history", () => {
  const pages = browserPages();
  let scene: Scene;

  beforeAll(async () => {
    scene = await startScene();
  });
  afterAll(async () => {
    await scene?.close();
  });

  it("is struck through with a 已撤回 badge; the message beside it is not", async () => {
    const { bot, qq } = scene;
    const recalledId = qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: plain("13800138000") });
    const keptId = qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: plain("没撤回的这条") });
    await bot.waitForLog((line) => line.msg === "message received" && line.messageId === keptId);
    qq.pushEvent(frameAbout("napcat/notice-group-recall", { message_id: recalledId, group_id: GROUP }));
    await bot.waitForLog((line) => line.msg === "message recalled" && line.messageId === recalledId);

    const page = await pages.open(`${bot.baseUrl}/chats?session=${encodeURIComponent(groupSession())}`);
    const recalled = page.locator(".history li", { hasText: "13800138000" });
    const kept = page.locator(".history li", { hasText: "没撤回的这条" });
    await recalled.waitFor();
    expect(await recalled.locator(".badge.recalled").textContent()).toBe("已撤回");
    expect(await recalled.locator(".content").evaluate(decoration)).toBe("line-through");
    expect(await kept.locator(".badge.recalled").count()).toBe(0);
    expect(await kept.locator(".content").evaluate(decoration)).toBe("none");
  });
});
