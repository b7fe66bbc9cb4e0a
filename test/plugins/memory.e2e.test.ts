import { afterEach, describe, expect, it } from "vitest";
import { toolResultInGroup } from "../support/memory-tools.ts";
import { ALICE, GROUP, OTHER_GROUP } from "../support/messages.ts";
import { type Scene, startScene } from "../support/scene.ts";
import { PluginSandbox } from "./plugin-fixtures.ts";

/**
 * A class-style plugin that remembers and recalls through `context.memory`, answering the
 * model with what it got (or the error it caught), so the test reads the tool results.
 */
const NOTES = `import { Plugin, Tool } from "tsumugi/sdk";
import type { ToolContext } from "tsumugi/sdk";

interface Args { fact?: string; query?: string; about?: string; id?: number }

const caught = (error: unknown) => ({ error: (error as Error).message });

export default class Notes extends Plugin {
  @Tool("note_fact", { description: "记下一件事", parameters: { fact: { type: "string" }, about: { type: "string" } } })
  async note({ fact = "", about }: Args, context: ToolContext) {
    return context.memory.remember(fact, about ? { about } : {}).then((memory) => ({ memory }), caught);
  }

  @Tool("look_up", { description: "想起一件事", parameters: { query: { type: "string" }, about: { type: "string" } } })
  async lookUp({ query = "", about }: Args, context: ToolContext) {
    return context.memory.recall(query, about ? { about } : {}).then((memories) => ({ memories }), caught);
  }

  @Tool("drop_fact", { description: "忘掉一件事", parameters: { id: { type: "integer" } } })
  async drop({ id = 0 }: Args, context: ToolContext) {
    return context.memory.forget(id).then((forgotten) => ({ forgotten }), caught);
  }
}
`;

/** The function-declaration style: the function's \`event\` carries \`memory\`. */
const FUNCTIONS = {
  "index.ts": `export const functionDeclarations = [{ name: "recall_about_me", description: "关于我记得什么", parameters: { type: "object", properties: { query: { type: "string" } } } }];
export const dynamicImports = { "./recall.ts": ["recall_about_me"] };`,
  "recall.ts": `import type { PluginEvent, ToolContext } from "tsumugi/sdk";
export async function recall_about_me(_bot: unknown, event: PluginEvent & Pick<ToolContext, "memory">, _config: unknown, query: string) {
  return { contents: (await event.memory.recall(query)).map((memory) => memory.content) };
}`,
};

describe("plugins read and write long-term memory (context.memory)", () => {
  let sandbox: PluginSandbox;
  let scene: Scene | undefined;

  afterEach(async () => {
    await scene?.close();
    scene = undefined;
    sandbox.remove();
  });

  const start = async (config: Record<string, unknown> = {}) => {
    sandbox = new PluginSandbox();
    sandbox.add("notes", { "index.ts": NOTES }, { sdk: "^1.4.0" });
    sandbox.add("recaller", FUNCTIONS);
    scene = await startScene({ config: { plugins: { dirs: [sandbox.root] }, ...config } });
    return scene;
  };

  it("a fact remembered in one group is recalled in another, by the class style and the function-declaration style", async () => {
    const scene = await start();
    const noted = (await toolResultInGroup(scene, GROUP, "note_fact", { fact: "下周二要去成都出差" })) as {
      memory: Record<string, unknown>;
    };
    expect(noted.memory).toMatchObject({
      about: "person",
      user_id: ALICE,
      subject_name: "Alice",
      content: "下周二要去成都出差",
      confirmations: 1,
    });
    expect(await toolResultInGroup(scene, OTHER_GROUP, "look_up", { query: "成都" })).toMatchObject({
      memories: [{ id: noted.memory.id, content: "下周二要去成都出差" }],
    });
    expect(await toolResultInGroup(scene, OTHER_GROUP, "recall_about_me", { query: "出差" })).toEqual({
      contents: ["下周二要去成都出差"],
    });
  });

  it("a group's memory is not visible from another group, and cannot be forgotten there", async () => {
    const scene = await start();
    const noted = (await toolResultInGroup(scene, GROUP, "note_fact", {
      fact: "每周五晚上开黑",
      about: "group",
    })) as {
      memory: { id: number };
    };
    expect(noted.memory).toMatchObject({ about: "group", group_id: GROUP, content: "每周五晚上开黑" });
    expect(await toolResultInGroup(scene, OTHER_GROUP, "look_up", { query: "开黑", about: "group" })).toEqual(
      {
        memories: [],
      },
    );
    expect(await toolResultInGroup(scene, OTHER_GROUP, "drop_fact", { id: noted.memory.id })).toEqual({
      forgotten: false,
    });
    expect(await toolResultInGroup(scene, GROUP, "look_up", { query: "开黑", about: "group" })).toMatchObject(
      {
        memories: [{ content: "每周五晚上开黑" }],
      },
    );
    expect(await toolResultInGroup(scene, GROUP, "drop_fact", { id: noted.memory.id })).toEqual({
      forgotten: true,
    });
    expect(await toolResultInGroup(scene, GROUP, "look_up", { query: "开黑", about: "group" })).toEqual({
      memories: [],
    });
  });

  it("memory.enabled: false refuses to remember and recalls nothing", async () => {
    const scene = await start({ memory: { enabled: false } });
    expect(await toolResultInGroup(scene, GROUP, "note_fact", { fact: "喜欢猫" })).toEqual({
      error: "long-term memory is off (memory.enabled: false)",
    });
    expect(await toolResultInGroup(scene, GROUP, "look_up", { query: "猫" })).toEqual({ memories: [] });
  });
});
