import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { pluginStatus } from "../support/bot-api.ts";
import { type BotHarness, startBot } from "../support/bot-harness.ts";
import {
  isAlive,
  nodeStdioPlugin,
  PluginSandbox,
  SUPERVISED_CONFIG_SCHEMA,
  SUPERVISED_PLUGIN,
} from "./stdio-fixtures.ts";

const firstTime = (dir: string, file: string) =>
  Number(
    readFileSync(join(dir, "data", file), "utf8")
      .trim()
      .split("\n")[0],
  );

describe("stdio plugins at shutdown", () => {
  let sandbox: PluginSandbox;
  let bot: BotHarness;

  afterEach(async () => {
    await bot?.dispose();
    sandbox.remove();
  });

  it("sends deactivate, lets a plugin exit by itself and kills one still running 5 s later", async () => {
    sandbox = new PluginSandbox();
    const polite = nodeStdioPlugin(sandbox, "polite", SUPERVISED_PLUGIN, {
      config: SUPERVISED_CONFIG_SCHEMA,
    });
    const stubborn = nodeStdioPlugin(sandbox, "stubborn", SUPERVISED_PLUGIN, {
      config: SUPERVISED_CONFIG_SCHEMA,
    });
    bot = await startBot({
      config: { plugins: { dirs: [sandbox.root], config: { stubborn: { ignoreDeactivate: true } } } },
    });
    const politePid = (await pluginStatus(bot, "polite")).process!.pid!;
    const stubbornPid = (await pluginStatus(bot, "stubborn")).process!.pid!;
    expect(isAlive(politePid) && isAlive(stubbornPid)).toBe(true);

    const stoppingAt = Date.now();
    await bot.stop();
    const stoppedAfter = Date.now() - stoppingAt;

    // The well-behaved plugin got deactivate and exited on its own, right away.
    const politeDeactivated = firstTime(polite.dir, "deactivations.log");
    expect(firstTime(polite.dir, "exits.log") - politeDeactivated).toBeLessThan(1_000);
    // The other one got deactivate too, ignored it, and was killed after the 5 s grace.
    expect(existsSync(join(stubborn.dir, "data", "deactivations.log"))).toBe(true);
    expect(existsSync(join(stubborn.dir, "data", "exits.log"))).toBe(false);
    expect(stoppedAfter).toBeGreaterThanOrEqual(4_900);
    expect(stoppedAfter).toBeLessThan(7_000);
    expect(isAlive(politePid)).toBe(false);
    expect(isAlive(stubbornPid)).toBe(false);
    const killed = bot.logs.find((line) =>
      String(line.msg).includes("did not exit within 5000 ms of deactivate"),
    );
    expect(killed?.plugin).toBe("stubborn");
  });
});
