import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { browserPages } from "../support/browser-pages.ts";
import { type ChatScene, chatScenes } from "../support/chat-scene.ts";
import { PluginPackages } from "../support/plugin-packages.ts";

const TOKEN = "install-browser-token";
/** npm starts slowly (seconds on a busy machine); the page previews, installs and uninstalls. */
const NPM_TEST_TIMEOUT_MS = 180_000;

describe("installing a plugin from the console's Plugins page", () => {
  const packages = new PluginPackages();
  const pluginsDir = mkdtempSync(join(tmpdir(), "tsumugi-installed-"));
  const start = chatScenes();
  const pages = browserPages();
  afterAll(async () => {
    packages.remove();
    rmSync(pluginsDir, { recursive: true, force: true });
  });

  it(
    "previews the manifest, installs, answers /greet in the group, and uninstalls",
    async () => {
      const scene: ChatScene = await start({
        config: { server: { token: TOKEN }, plugins: { dirs: [pluginsDir] } },
      });
      const tarball = packages.pack("greeter");
      const page = await pages.open(`${scene.bot.baseUrl}/plugins`, { token: TOKEN });

      await page.locator("input[name=spec]").fill(tarball);
      await page.getByRole("button", { name: "查看" }).click();
      const preview = page.locator("[data-preview=greeter]");
      await preview.waitFor({ timeout: 60_000 });
      expect(await preview.locator("h3").textContent()).toContain("Greeter");
      expect(await preview.locator("[data-launch]").textContent()).toBe("机器人进程内（不隔离）");
      expect(await preview.locator("[data-scripts]").textContent()).toBe("postinstall");
      expect(readdirSync(pluginsDir)).toEqual([]);

      await preview.getByRole("button", { name: "安装" }).click();
      await expect
        .poll(() => page.getByRole("status").textContent(), { timeout: 60_000 })
        .toBe("已安装: greeter 1.0.0");
      await page.locator("[data-plugin=greeter]").waitFor();
      expect(existsSync(join(pluginsDir, "greeter", "postinstall-ran.txt"))).toBe(false);
      scene.ask("/greet 浏览器", { mention: false });
      await scene.expectReply("你好，浏览器");

      const installed = page.locator("[data-installed=greeter]");
      await installed.getByRole("button", { name: "卸载" }).click();
      await installed.getByRole("button", { name: "确认卸载" }).click();
      await page.locator("[data-plugin=greeter]").waitFor({ state: "detached", timeout: 30_000 });
      expect(readdirSync(pluginsDir)).toEqual([]);
      scene.ask("/greet 浏览器", { mention: false });
      await scene.expectNoReply();
    },
    NPM_TEST_TIMEOUT_MS,
  );
});
