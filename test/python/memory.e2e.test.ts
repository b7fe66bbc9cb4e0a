import { afterEach, describe, expect, it } from "vitest";
import { toolResultInGroup } from "../support/memory-tools.ts";
import { ALICE, GROUP, OTHER_GROUP } from "../support/messages.ts";
import { type Scene, startScene } from "../support/scene.ts";
import { PluginSandbox, pythonPlugin } from "./python-fixtures.ts";

/**
 * Class style: tools remembering, recalling and forgetting through `event.memory`, answering
 * the model with what they got or the MemoryAccessError they caught; a PreToolUse hook reading
 * its `memory` keyword. Function-declaration style: a function recalling through `event.memory` too.
 */
const NOTES = `
from maibot_sdk import Hook, MaiBotPlugin, MemoryAccessError, Tool


class Notes(MaiBotPlugin):
    @Tool("note_fact", "记下一件事", {"fact": {"type": "string"}, "about": {"type": "string"}})
    async def note_fact(self, event, fact="", about=None):
        try:
            memory = await event.memory.remember(fact, about=about)
        except MemoryAccessError as error:
            return {"error": str(error)}
        return {"memory": memory._asdict()}

    @Tool("look_up", "想起一件事", {"query": {"type": "string"}, "about": {"type": "string"}})
    async def look_up(self, event, query="", about=None):
        try:
            memories = await event.memory.recall(query, about=about, limit=3)
        except MemoryAccessError as error:
            return {"error": str(error)}
        return {"memories": [memory.content for memory in memories]}

    @Tool("drop_fact", "忘掉一件事", {"id": {"type": "integer"}})
    async def drop_fact(self, event, id=0):
        return {"forgotten": await event.memory.forget(id)}

    @Hook("secret_guard", event="PreToolUse", matcher="look_up")
    async def secret_guard(self, memory):
        secrets = await memory.recall("机密")
        if secrets:
            return {"decision": "deny", "message": "不查机密的人"}
        return None


def create_plugin():
    return Notes()
`;

const FUNCTIONS = `
plugin_description = "回忆"
dynamic_imports = {"recaller.recall": ["recall_about_me"]}
function_declarations = [{"name": "recall_about_me", "description": "关于我记得什么",
                           "parameters": {"type": "object", "properties": {"query": {"type": "string"}}}}]
`;

const RECALL = `
async def recall_about_me(bot, event, config, query=""):
    return {"contents": [memory.content for memory in await event.memory.recall(query)]}
`;

describe("Python plugins read and write long-term memory (event.memory)", () => {
  let sandbox: PluginSandbox;
  let scene: Scene | undefined;

  afterEach(async () => {
    await scene?.close();
    scene = undefined;
    sandbox.remove();
  });

  const start = async (config: Record<string, unknown> = {}) => {
    sandbox = new PluginSandbox();
    pythonPlugin(sandbox, "notes", { "plugin.py": NOTES });
    pythonPlugin(sandbox, "recaller", { "__init__.py": FUNCTIONS, "recall.py": RECALL }, { entry: "." });
    scene = await startScene({ config: { plugins: { dirs: [sandbox.root] }, ...config } });
    return scene;
  };

  it("a fact remembered in one group is recalled in another, by the class style and the function-declaration style", async () => {
    const scene = await start();
    expect(await toolResultInGroup(scene, GROUP, "note_fact", { fact: "下周二要去成都出差" })).toEqual({
      memory: expect.objectContaining({
        about: "person",
        user_id: ALICE,
        group_id: null,
        subject_name: "Alice",
        content: "下周二要去成都出差",
        confirmations: 1,
      }),
    });
    expect(await toolResultInGroup(scene, OTHER_GROUP, "look_up", { query: "成都" })).toEqual({
      memories: ["下周二要去成都出差"],
    });
    expect(await toolResultInGroup(scene, OTHER_GROUP, "recall_about_me", { query: "出差" })).toEqual({
      contents: ["下周二要去成都出差"],
    });
  });

  it("a group's memory stays in its group; a hook reads memory too and can deny", async () => {
    const scene = await start();
    const noted = (await toolResultInGroup(scene, GROUP, "note_fact", {
      fact: "每周五晚上开黑",
      about: "group",
    })) as {
      memory: { id: number; group_id: string };
    };
    expect(noted.memory.group_id).toBe(GROUP);
    expect(await toolResultInGroup(scene, OTHER_GROUP, "look_up", { query: "开黑", about: "group" })).toEqual(
      {
        memories: [],
      },
    );
    expect(await toolResultInGroup(scene, OTHER_GROUP, "drop_fact", { id: noted.memory.id })).toEqual({
      forgotten: false,
    });
    expect(await toolResultInGroup(scene, GROUP, "look_up", { query: "开黑", about: "group" })).toEqual({
      memories: ["每周五晚上开黑"],
    });
    await toolResultInGroup(scene, GROUP, "note_fact", { fact: "是机密人员" });
    expect(await toolResultInGroup(scene, GROUP, "look_up", { query: "开黑" })).toBe(
      "调用被拒绝：不查机密的人",
    );
  });

  it("memory.enabled: false: remember raises MemoryAccessError with the reason, recall finds nothing", async () => {
    const scene = await start({ memory: { enabled: false } });
    expect(await toolResultInGroup(scene, GROUP, "note_fact", { fact: "喜欢猫" })).toEqual({
      error: "long-term memory is off (memory.enabled: false)",
    });
    expect(await toolResultInGroup(scene, GROUP, "look_up", { query: "猫" })).toEqual({ memories: [] });
  });

  it("an empty fact is refused with the reason", async () => {
    const scene = await start();
    expect(await toolResultInGroup(scene, GROUP, "note_fact", { fact: "  " })).toEqual({
      error: "memory.remember needs the fact to remember (non-empty text)",
    });
  });
});
