import { createHash } from "node:crypto";
import { copyFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { pluginStatus } from "../support/bot-api.ts";
import type { BotHarness } from "../support/bot-harness.ts";
import { mention } from "../support/messages.ts";
import type { OneBotStandIn } from "../support/onebot-standin.ts";
import { type Scene, startScene } from "../support/scene.ts";
import type { ScriptedLlmServer } from "../support/scripted-llm-server.ts";
import { isAlive, PluginSandbox } from "./stdio-fixtures.ts";

/** The stdio protocol's reference examples (Python and Node.js), byte for byte (biome leaves them alone). */
const REFERENCE_EXAMPLES = fileURLToPath(new URL("./reference-examples/", import.meta.url));

/**
 * SHA-256 of each example exactly as its reference prints it (the code block's lines, each ending
 * in "\n", nothing added or changed): an edit, a reformat or CRLF line ends fail the test.
 */
const REFERENCE_SHA256 = {
  "plugin.py": "4d00ed741c54cbcf3fc6c3032dc6dad1ccce782e319ec5419240f24ed2ff32ea",
  "plugin.js": "fcc76da2f7d9c1b59f1fc19d8247c7505efe076b97c4adbd37952b2124e937e7",
};

describe("the stdio protocol's reference examples, saved unchanged as plugin entries", () => {
  let sandbox: PluginSandbox;
  let llm: ScriptedLlmServer;
  let bot: BotHarness;
  let scene: Scene | undefined;
  let qq: OneBotStandIn;

  afterEach(async () => {
    await scene?.close();
    scene = undefined;
    sandbox?.remove();
  });

  it("holds the reference text byte for byte", () => {
    for (const [file, sha256] of Object.entries(REFERENCE_SHA256)) {
      const bytes = readFileSync(join(REFERENCE_EXAMPLES, file));
      expect(createHash("sha256").update(bytes).digest("hex"), file).toBe(sha256);
    }
  });

  it("runs both: greet and timestamp are called by the model, and both deactivate at shutdown", async () => {
    sandbox = new PluginSandbox();
    const python = sandbox.add("seed-python", {}, { runtime: "stdio", entry: "python3 plugin.py" });
    copyFileSync(join(REFERENCE_EXAMPLES, "plugin.py"), join(python.dir, "plugin.py"));
    const node = sandbox.add("seed-node", {}, { runtime: "stdio", entry: "node plugin.js" });
    copyFileSync(join(REFERENCE_EXAMPLES, "plugin.js"), join(node.dir, "plugin.js"));
    scene = await startScene({ config: { plugins: { dirs: [sandbox.root] } } });
    ({ llm, bot, qq } = scene);

    const pythonStatus = await pluginStatus(bot, "seed-python");
    expect(pythonStatus.components.map((component) => `${component.kind}:${component.name}`)).toEqual([
      "tool:greet",
      "hook:PostToolUse_1",
    ]);
    expect((await pluginStatus(bot, "seed-node")).components.map((component) => component.name)).toEqual([
      "timestamp",
    ]);

    llm.enqueue(
      {
        toolCalls: [
          { name: "greet", arguments: { name: "Alice" } },
          { name: "timestamp", arguments: {} },
        ],
      },
      { toolCalls: [{ name: "reply", arguments: {} }] },
      { text: "你好 Alice" },
    );
    qq.pushGroupMessage({ groupId: "20000", userId: "30001", message: mention("打个招呼，顺便看看时间") });
    expect((await qq.waitForSent(undefined, 8_000)).text).toBe("你好 Alice");
    expect(llm.requests[0]!.toolNames).toEqual(expect.arrayContaining(["greet", "timestamp"]));
    const results = llm.requests[1]!.body.messages.filter((message) => message.role === "tool");
    // `input` is the JSON string of the arguments, exactly as xbot sends it.
    expect(results[0]!.content).toBe('Hello, {"name":"Alice"}!');
    expect(Date.parse(String(results[1]!.content))).toBeGreaterThan(Date.now() - 60_000);

    const pids = [pythonStatus.process!.pid!, (await pluginStatus(bot, "seed-node")).process!.pid!];
    const stoppingAt = Date.now();
    await bot.stop();
    // Each answered deactivate and exited when its stdin closed: no 5 s kill was needed.
    expect(Date.now() - stoppingAt).toBeLessThan(3_000);
    expect(pids.filter(isAlive)).toEqual([]);
    expect(bot.logs.some((line) => String(line.msg).includes("did not exit"))).toBe(false);
  });
});
