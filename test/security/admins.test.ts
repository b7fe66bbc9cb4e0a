/**
 * Admin identity is platform-qualified: a stdio channel (or the web page behind it) that names
 * its sender "10001" does not become the QQ admin 10001.
 */
import { afterEach, describe, expect, it } from "vitest";
import { validateConfig } from "../../src/config/validate.ts";
import type { PluginStatus } from "../../src/plugins/plugin-host.ts";
import { classPlugin, type PluginFolder, PluginSandbox } from "../plugins/plugin-fixtures.ts";
import { channelSays, sayingChannel } from "../stdio/stdio-fixtures.ts";
import { GROUP, SELF } from "../support/messages.ts";
import { type Scene, startScene } from "../support/scene.ts";
import { waitFor } from "../support/wait.ts";

const REFUSAL = "只有管理员可以使用这个命令。";

describe("admins are users of one platform", () => {
  let sandbox: PluginSandbox;
  let channel: PluginFolder;
  let scene: Scene | undefined;
  let token: string | undefined;

  afterEach(async () => {
    await scene?.close();
    scene = undefined;
    sandbox.remove();
  });

  const start = async (admins: string[], serverToken?: string) => {
    sandbox = new PluginSandbox();
    sandbox.add("x", {
      "index.ts": classPlugin(`
  @Tool("noop", { description: "什么也不做" })
  noop() { return {}; }`),
    });
    // Its user calls themselves 10001, the QQ admin's id.
    channel = sayingChannel(sandbox, "chan", { id: "10001", name: "Mallory" });
    token = serverToken;
    scene = await startScene({
      config: {
        plugins: { dirs: [sandbox.root] },
        bot: { admins },
        ...(token ? { server: { token } } : {}),
      },
      selfId: SELF,
    });
    await waitFor(async () => (await statusOf("chan")).process?.state === "running");
    return scene;
  };

  /** A plugin's status from the console API. */
  const statusOf = async (id: string): Promise<PluginStatus> => {
    const response = await fetch(`${scene!.bot.baseUrl}/api/plugins`, {
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
    const { plugins } = (await response.json()) as { plugins: PluginStatus[] };
    return plugins.find((plugin) => plugin.id === id)!;
  };

  /** What the channel's user types; resolves with the bot's answer in the channel. */
  const channelUserSays = (text: string) => channelSays(scene!.bot.logs, channel, text);

  /** What QQ user `userId` types in the group; resolves with the bot's answer. */
  const qqSays = async (userId: string, text: string): Promise<string> => {
    const qq = scene!.qq;
    const seen = qq.sent.length;
    qq.pushGroupMessage({ groupId: GROUP, userId, message: [{ type: "text", data: { text } }] });
    const answer = await qq.waitForSent((sent) => qq.sent.indexOf(sent) >= seen, 8_000);
    return String(answer.text);
  };

  const stateOfX = async () => (await statusOf("x")).state;

  it('refuses a stdio channel user who calls themselves "10001", and obeys QQ user 10001', async () => {
    await start(["10001"]);
    expect(await channelUserSays("/plugins disable x")).toBe(REFUSAL);
    expect(await stateOfX()).toBe("enabled");
    expect(
      scene!.bot.logs.some(
        (line) =>
          line.msg === "admin command refused: the sender is not in bot.admins" && line.platform === "stdio",
      ),
    ).toBe(true);

    expect(await qqSays("10001", "/plugins disable x")).toMatch(/^x 1\.0\.0 \[已停用\]/);
    expect(await stateOfX()).toBe("disabled");
  });

  it('makes a channel user an admin only when named "stdio.<pluginId>:<userId>"', async () => {
    await start(["stdio.chan:10001"]);
    expect(await qqSays("10001", "/plugins disable x")).toBe(REFUSAL);
    expect(await stateOfX()).toBe("enabled");

    expect(await channelUserSays("/plugins disable x")).toMatch(/^x 1\.0\.0 \[已停用\]/);
    expect(await stateOfX()).toBe("disabled");
  });

  it("does not make a channel's user an admin for another plugin's entry", async () => {
    await start(["stdio.other:10001"]);
    expect(await channelUserSays("/plugins disable x")).toBe(REFUSAL);
    expect(await qqSays("10001", "/plugins disable x")).toBe(REFUSAL);
    expect(await stateOfX()).toBe("enabled");
  });

  it('takes "onebot:<id>" for a QQ user of any adapter and "onebot.<adapterId>:<id>" for one adapter', async () => {
    await start(["onebot:10001", "onebot.elsewhere:10002"]);
    expect(await qqSays("10002", "/plugins disable x")).toBe(REFUSAL);
    expect(await channelUserSays("/plugins disable x")).toBe(REFUSAL);
    expect(await stateOfX()).toBe("enabled");

    expect(await qqSays("10001", "/plugins disable x")).toMatch(/^x 1\.0\.0 \[已停用\]/);
    expect(await stateOfX()).toBe("disabled");
  });

  it("checks the console playground's users as QQ users", async () => {
    const { bot } = await start(["onebot:10001"], "admins-test-token");
    const post = (userId: string) =>
      fetch(`${bot.baseUrl}/api/playground/messages`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          origin: bot.baseUrl,
        },
        body: JSON.stringify({
          chatType: "group",
          groupId: GROUP,
          userId,
          senderName: "控制台",
          segments: [{ type: "text", data: { text: "/plugins disable x" } }],
        }),
      });

    expect((await post("30001")).status).toBe(201);
    await bot.waitForEvent("message.sent", (event) => event.data.text === REFUSAL);
    expect(await stateOfX()).toBe("enabled");
    expect((await post("10001")).status).toBe(201);
    await waitFor(async () => (await stateOfX()) === "disabled");
  });

  it("refuses an admins entry in no known form, naming the forms", () => {
    const validate = validateConfig;
    const good = validate({ bot: { admins: ["10001", "onebot.qq:10001", "stdio.chan:Mallory 2:b"] } });
    expect(good.ok).toBe(true);
    const admins = ["10001", "qq:10001", "stdio:10001", "stdio.chan", "stdio.chan:", "stdio.Chan:1"];
    const validation = validate({ bot: { admins } });
    expect(validation.ok).toBe(false);
    const problems = validation.ok ? [] : validation.problems;
    const forms =
      'must be a QQ user id ("10001"), "onebot:10001", "onebot.<adapterId>:10001" or "stdio.<pluginId>:<userId>"';
    expect(problems).toEqual([1, 2, 3, 4, 5].map((index) => `bot.admins[${index}]: ${forms}`));
  });
});
