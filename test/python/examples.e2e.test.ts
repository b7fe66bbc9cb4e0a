import { afterEach, describe, expect, it } from "vitest";
import { pluginStatus } from "../support/bot-api.ts";
import type { BotHarness } from "../support/bot-harness.ts";
import { ALICE, GROUP, mention, plain } from "../support/messages.ts";
import type { OneBotStandIn } from "../support/onebot-standin.ts";
import { type Scene, startScene } from "../support/scene.ts";
import type { ScriptedLlmServer } from "../support/scripted-llm-server.ts";
import { copyExample, PluginSandbox, pythonPlugin } from "./python-fixtures.ts";

/**
 * A function-declaration package that learns words at run time, as a code generator does: the
 * learn_word tool writes a module and its declaration under data/ (not watched, so no reload)
 * and calls bot.refresh_tools().
 */
const LEARNER = {
  "__init__.py": `
import json
import os

plugin_description = "学说话"

dynamic_imports = {"learner.words": ["learn_word"]}
function_declarations = [{
    "name": "learn_word",
    "description": "学一个新词",
    "parameters": {"type": "object", "properties": {"word": {"type": "string"}}, "required": ["word"]},
}]

if os.path.exists("data/learned.json"):
    with open("data/learned.json", encoding="utf-8") as handle:
        learned = json.load(handle)
    dynamic_imports["learner.data.learned"] = [f"say_{word}" for word in learned]
    function_declarations += [{"name": f"say_{word}", "description": f"说 {word}"} for word in learned]
`,
  "words.py": `
import json
import os


async def learn_word(bot, event, config, word):
    os.makedirs("data", exist_ok=True)
    with open("data/learned.py", "w", encoding="utf-8") as module:
        module.write(f"async def say_{word}(bot, event, config):\\n    return {{'said': '{word}'}}\\n")
    with open("data/learned.json", "w", encoding="utf-8") as declarations:
        json.dump([word], declarations)
    bot.refresh_tools()
    return {"learned": word}
`,
};

/** Class style with two guards of one event: each is asked by its own name, with the tool's input as a dict. */
const GUARDED = `
from maibot_sdk import Hook, MaiBotPlugin, Tool


class Guarded(MaiBotPlugin):
    @Tool("delete_file", "删除文件", {"path": {"type": "string"}})
    def delete_file(self, path):
        return f"deleted {path}"

    @Hook("etc_guard", event="PreToolUse", matcher="delete_*")
    def etc_guard(self, tool_name, tool_input):
        if tool_input["path"].startswith("/etc/"):
            return {"decision": "deny", "message": f"{tool_name} 不能碰 {tool_input['path']}"}

    @Hook("audit", event="PreToolUse")
    async def audit(self, **context):
        self.logger.info("tool %s asked in %s", context["tool_name"], context["chat_id"])


def create_plugin():
    return Guarded()
`;

describe("the Python SDK's example plugins and function-declaration behaviour, end to end", () => {
  let sandbox: PluginSandbox;
  let scene: Scene | undefined;
  let llm: ScriptedLlmServer;
  let bot: BotHarness;
  let qq: OneBotStandIn;

  const start = async () => {
    scene = await startScene({ config: { plugins: { dirs: [sandbox.root] } } });
    ({ llm, bot, qq } = scene);
  };
  const ask = (text: string) =>
    qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: mention(text) });
  const toolResult = (request: number) =>
    String(llm.requests[request]!.body.messages.find((message) => message.role === "tool")?.content);

  afterEach(async () => {
    await scene?.close();
    scene = undefined;
    sandbox?.remove();
  });

  it("class style: the model calls the choose tool and sees its dict; /pick answers without the model", async () => {
    sandbox = new PluginSandbox();
    copyExample(sandbox, "example-python-class");
    await start();
    const status = await pluginStatus(bot, "example-python-class");
    expect(status.process?.command).toEqual(["python3", "-m", "tsumugi_sdk.runner", "plugin.py"]);
    expect(status.components.map((c) => `${c.kind}:${c.name}`).sort()).toEqual([
      "command:pick",
      "tool:choose",
    ]);

    llm.enqueue(
      { toolCalls: [{ name: "choose", arguments: { options: ["火锅", "烧烤"] } }] },
      { toolCalls: [{ name: "reply", arguments: {} }] },
      { text: "就吃它了" },
    );
    ask("晚上吃火锅还是烧烤");
    expect((await qq.waitForSent(undefined, 8_000)).text).toBe("就吃它了");
    await bot.turnFinished();
    const chosen = JSON.parse(toolResult(1));
    expect(chosen.options).toEqual(["火锅", "烧烤"]);
    expect(["火锅", "烧烤"]).toContain(chosen.choice);

    qq.pushGroupMessage({ groupId: GROUP, userId: ALICE, message: plain("/pick 猫 猫") });
    expect((await qq.waitForSent((sent) => sent.text.startsWith("我选"), 8_000)).text).toBe("我选：猫");
    expect(llm.requests).toHaveLength(3);
  });

  it("function-declaration style: a tool that sends through bot.send and returns None ends the turn silently; a dict goes to the model", async () => {
    sandbox = new PluginSandbox();
    copyExample(sandbox, "example-python-functions");
    await start();
    llm.enqueue({ toolCalls: [{ name: "remember_note", arguments: { text: "周五交周报" } }] });
    const messageId = ask("记一下：周五交周报");
    const confirmation = await qq.waitForSent(undefined, 8_000);
    expect(confirmation.message).toEqual([
      { type: "reply", data: { id: messageId } },
      { type: "text", data: { text: "记下了：周五交周报" } },
    ]);
    const finished = await bot.turnFinished();
    expect(finished.data.status).toBe("replied");
    // None from the tool: no second model call.
    expect(llm.requests).toHaveLength(1);

    llm.enqueue(
      { toolCalls: [{ name: "list_notes", arguments: {} }] },
      { toolCalls: [{ name: "reply", arguments: {} }] },
      { text: "记着呢：周五交周报" },
    );
    ask("我们记了什么");
    expect((await qq.waitForSent((sent) => sent.text.startsWith("记着呢"), 8_000)).text).toBe(
      "记着呢：周五交周报",
    );
    expect(JSON.parse(toolResult(2))).toEqual({ notes: ["周五交周报"] });
  });

  it("function-declaration style: refresh_tools() re-reads the declarations and the next planner round offers the new tool", async () => {
    sandbox = new PluginSandbox();
    pythonPlugin(sandbox, "learner", LEARNER, { entry: "." });
    await start();
    llm.enqueue(
      { toolCalls: [{ name: "learn_word", arguments: { word: "hello" } }] },
      { toolCalls: [{ name: "say_hello", arguments: {} }] },
      { toolCalls: [{ name: "reply", arguments: {} }] },
      { text: "hello!" },
    );
    ask("学一下 hello 这个词，然后说出来");
    expect((await qq.waitForSent(undefined, 8_000)).text).toBe("hello!");
    expect(llm.requests[0]!.toolNames).not.toContain("say_hello");
    expect(llm.requests[1]!.toolNames).toContain("say_hello");
    const results = llm.requests[2]!.body.messages.filter((message) => message.role === "tool");
    expect(results.map((message) => JSON.parse(String(message.content)))).toEqual([
      { learned: "hello" },
      { said: "hello" },
    ]);
  });

  it("class style: a hook answers by its own name and denies with the tool's input", async () => {
    sandbox = new PluginSandbox();
    pythonPlugin(sandbox, "guarded", { "plugin.py": GUARDED });
    await start();
    llm.enqueue(
      { toolCalls: [{ name: "delete_file", arguments: { path: "/etc/passwd" } }] },
      { toolCalls: [{ name: "delete_file", arguments: { path: "/tmp/x" } }] },
      { toolCalls: [{ name: "reply", arguments: {} }] },
      { text: "只删了 /tmp/x" },
    );
    ask("把 /etc/passwd 和 /tmp/x 删了");
    await qq.waitForSent(undefined, 8_000);
    expect(toolResult(1)).toBe("调用被拒绝：delete_file 不能碰 /etc/passwd");
    const results = llm.requests[2]!.body.messages.filter((message) => message.role === "tool");
    expect(results.map((message) => message.content)).toEqual([
      "调用被拒绝：delete_file 不能碰 /etc/passwd",
      "deleted /tmp/x",
    ]);
  });
});
