/**
 * Channel identities: two stdio channel plugins each have a user called
 * "alice". They are two people: one's memories are neither seen nor forgotten by the other, and
 * each has a rate limit of their own.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { PluginStatus } from "../../src/plugins/plugin-host.ts";
import type { PluginFolder } from "../plugins/plugin-fixtures.ts";
import { storedRows } from "../support/bot-harness.ts";
import { SELF } from "../support/messages.ts";
import { type Scene, startScene } from "../support/scene.ts";
import { waitFor } from "../support/wait.ts";
import { channelSays, PluginSandbox, sayingChannel } from "./stdio-fixtures.ts";

const CHANNELS = ["chan_a", "chan_b"] as const;
type Channel = (typeof CHANNELS)[number];
const REPLY = { toolCalls: [{ name: "reply", arguments: {} }] };

describe("stdio channels' users are told apart by plugin", () => {
  let sandbox: PluginSandbox;
  let scene: Scene | undefined;
  const folders = new Map<Channel, PluginFolder>();

  afterEach(async () => {
    await scene?.close();
    scene = undefined;
    sandbox.remove();
  });

  const start = async (config: Record<string, unknown>) => {
    sandbox = new PluginSandbox();
    for (const id of CHANNELS) folders.set(id, sayingChannel(sandbox, id, { id: "alice", name: "Alice" }));
    scene = await startScene({ config: { plugins: { dirs: [sandbox.root] }, ...config }, selfId: SELF });
    for (const id of CHANNELS) {
      await waitFor(async () => (await statusOf(id)).process?.state === "running");
    }
    return scene;
  };

  const statusOf = async (id: string): Promise<PluginStatus> => {
    const response = await fetch(`${scene!.bot.baseUrl}/api/plugins`);
    const { plugins } = (await response.json()) as { plugins: PluginStatus[] };
    return plugins.find((plugin) => plugin.id === id)!;
  };

  /** What alice of `channel` types; resolves with the bot's answer there. */
  const aliceSays = (channel: Channel, text: string) =>
    channelSays(scene!.bot.logs, folders.get(channel)!, text);

  const storedMemories = () =>
    storedRows<{ subject: string; content: string }>(
      scene!.bot.dataDir,
      "SELECT subject, content FROM memories ORDER BY id",
    );

  it("keeps each channel's alice's memories and rate limit her own", async () => {
    // Commands count as turns do: three a minute are the first alice's turn, her /记忆 and one more.
    const s = await start({ limits: { userTurnsPerMinute: 3 } });
    s.llm.enqueue({ toolCalls: [{ name: "remember", arguments: { content: "住在春熙路 12 号" } }] }, REPLY, {
      text: "记住了",
    });
    expect(await aliceSays("chan_a", "记住，我住在春熙路 12 号")).toBe("记住了");
    expect(await storedMemories()).toEqual([
      { subject: "person:stdio.chan_a:alice", content: "住在春熙路 12 号" },
    ]);

    // The other channel's alice starts a turn of her own within the minute, and the bot knows
    // nothing about her.
    s.llm.enqueue(REPLY, { text: "不知道呀" });
    expect(await aliceSays("chan_b", "我住在哪")).toBe("不知道呀");
    expect(s.llm.requests.at(-1)?.promptText).not.toContain("春熙路");
    expect(await aliceSays("chan_b", "/记忆")).toBe("我还不记得关于你的事。");

    // Her /forget leaves the first alice's memory alone.
    expect(await aliceSays("chan_b", "/忘记")).toContain("我本来就不记得关于你的事");
    expect(await storedMemories()).toHaveLength(1);
    expect(await aliceSays("chan_a", "/记忆")).toContain("住在春熙路 12 号");

    // The other alice's turn and two commands were not hers: the first alice has one left.
    s.llm.enqueue(REPLY, { text: "春熙路 12 号" });
    expect(await aliceSays("chan_a", "我住在哪")).toBe("春熙路 12 号");
    expect(await aliceSays("chan_a", "再说一次")).toBe("说得太快了，稍后再试。");
  });
});
