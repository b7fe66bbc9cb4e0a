import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { apiClient } from "../support/api-client.ts";
import { chatScenes } from "../support/chat-scene.ts";
import { PluginPackages } from "../support/plugin-packages.ts";
import { waitFor } from "../support/wait.ts";

const run = promisify(execFile);
const ROOT = new URL("../../", import.meta.url).pathname;
/** npm starts slowly (seconds on a busy machine), and the test packs, installs and uninstalls. */
const NPM_TEST_TIMEOUT_MS = 180_000;

/** `npm run plugin -- …` as an operator runs it (without npm's own start-up), with its exit code. */
async function pluginCommand(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      ["--import", "tsx", "scripts/plugin.ts", ...args],
      {
        cwd: ROOT,
      },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe("npm run plugin", () => {
  const packages = new PluginPackages();
  const pluginsDir = mkdtempSync(join(tmpdir(), "tsumugi-installed-"));
  const start = chatScenes();
  afterAll(() => {
    packages.remove();
    rmSync(pluginsDir, { recursive: true, force: true });
  });

  it(
    "shows the manifest, installs into the running bot's plugin folder, lists and uninstalls",
    async () => {
      const { bot, ask, expectReply, expectNoReply } = await start({
        configFile: true,
        config: { plugins: { dirs: [pluginsDir] } },
      });
      const config = ["--config", bot.configFile!];
      const api = apiClient(bot.baseUrl);
      const stateOfGreeter = async () =>
        (await api.get("/api/plugins")).body.plugins.find((plugin: { id: string }) => plugin.id === "greeter")
          ?.state as string | undefined;
      const tarball = packages.pack("greeter");

      const unasked = await pluginCommand("install", tarball, ...config);
      expect(unasked.code).toBe(1);
      expect(unasked.stdout).toContain("greeter 1.0.0 — Greeter (package tsumugi-plugin-greeter)");
      expect(unasked.stdout).toMatch(/scripts: +postinstall \(skipped: installed with --ignore-scripts\)/);
      expect(unasked.stderr).toContain("add --yes");
      expect(readdirSync(pluginsDir)).toEqual([]);

      const installed = await pluginCommand("install", tarball, "--yes", ...config);
      expect(installed).toMatchObject({
        code: 0,
        stdout: expect.stringContaining("installed greeter 1.0.0"),
      });
      expect(existsSync(join(pluginsDir, "greeter", "postinstall-ran.txt"))).toBe(false);
      // The running bot loads it from its folder by itself.
      await waitFor(async () => (await stateOfGreeter()) === "enabled", 10_000, "greeter loaded");
      ask("/greet 世界", { mention: false });
      await expectReply("你好，世界");

      const listed = await pluginCommand("list", ...config);
      expect(listed.stdout).toContain(
        `greeter\t1.0.0\tnode\tfrom ${tarball}\t${join(pluginsDir, "greeter")}`,
      );

      const uninstalled = await pluginCommand("uninstall", "greeter", ...config);
      expect(uninstalled).toMatchObject({ code: 0, stdout: "uninstalled greeter\n" });
      expect(readdirSync(pluginsDir)).toEqual([]);
      await waitFor(async () => (await stateOfGreeter()) === undefined, 10_000, "greeter removed");
      ask("/greet 世界", { mention: false });
      await expectNoReply();

      const notOurs = await pluginCommand("uninstall", "greeter", ...config);
      expect(notOurs).toMatchObject({
        code: 1,
        stderr: expect.stringContaining('plugin "greeter" was not installed'),
      });
    },
    NPM_TEST_TIMEOUT_MS,
  );
});
