import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { GROUP, SELF } from "../support/messages.ts";
import { type Scene, startScene } from "../support/scene.ts";
import { nodeStdioPlugin, PluginSandbox } from "./stdio-fixtures.ts";

/** A reply extension over stdio: a prompt in prepare, a rewrite in before_send; it logs every payload. */
const CAT = `
const fs = require("node:fs");
const readline = require("node:readline");
const write = (message) => process.stdout.write(JSON.stringify(message) + "\\n");
fs.mkdirSync("data", { recursive: true });
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const { method, params = {} } = JSON.parse(line);
  if (method === "activate") {
    return write({
      reply_extensions: [
        {
          name: "cat",
          description: "Talk like a cat",
          parameters: [{ name: "mode", type: "string", enum: ["cat", "kitten"], required: true }],
        },
      ],
    });
  }
  if (method === "reply_extension") {
    fs.appendFileSync("data/calls.log", JSON.stringify(params) + "\\n");
    if (params.phase === "prepare") return write({ result: { extra_prompt: "每句话结尾加上「喵」。" } });
    return write({
      result: { messages: [{ segments: [{ type: "text", data: params.text + "（" + params.parameters.mode + "）" }], quote_previous: false }] },
    });
  }
  write({ result: "ok" });
});
`;

describe("reply extensions served by a stdio plugin (reply extension payloads over JSON lines)", () => {
  let sandbox: PluginSandbox;
  let scene: Scene | undefined;

  afterEach(async () => {
    await scene?.close();
    sandbox.remove();
  });

  it("offers the extension in plugin_options and runs prepare and before_send in the plugin", async () => {
    sandbox = new PluginSandbox();
    const folder = nodeStdioPlugin(sandbox, "meow", CAT);
    scene = await startScene({ config: { plugins: { dirs: [sandbox.root] } }, selfId: SELF });
    const { llm, qq } = scene;
    llm.enqueue(
      { toolCalls: [{ name: "reply", arguments: { plugin_options: { "meow.cat": { mode: "kitten" } } } }] },
      { text: "好的喵" },
    );
    const messageId = qq.pushGroupMessage({
      groupId: GROUP,
      userId: "30001",
      message: [
        { type: "at", data: { qq: SELF } },
        { type: "text", data: { text: " 学猫叫" } },
      ],
    });
    const sent = await qq.waitForSent(undefined, 8_000);
    expect(sent.text).toBe("好的喵（kitten）");

    const replyTool = llm.requests[0]!.body.tools!.find((tool) => tool.function.name === "reply")!;
    const options = (replyTool.function.parameters as { properties: Record<string, { properties: object }> })
      .properties.plugin_options!;
    expect(Object.keys(options.properties)).toEqual(["meow.cat"]);
    expect(llm.requests[1]!.promptText).toContain("每句话结尾加上「喵」。");

    const calls = readFileSync(join(folder.dir, "data", "calls.log"), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(calls.map((call) => call.phase)).toEqual(["prepare", "before_send"]);
    expect(calls[0]).toMatchObject({
      extensionName: "cat",
      phase: "prepare",
      session_id: `onebot:${SELF}:group:${GROUP}`,
      reply_message_id: messageId,
      chat: { is_group_chat: true, group_id: GROUP },
      parameters: { mode: "kitten" },
      text: "",
      messages: [],
    });
    expect(calls[1]).toMatchObject({
      phase: "before_send",
      reply_id: calls[0].reply_id,
      text: "好的喵",
      messages: [{ segments: [{ type: "text", data: "好的喵" }], quote_previous: false }],
    });
  });
});
